import ArgumentParser
import Parcels
import UnixFilter

struct CarrierDetectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "carrier-detect",
        abstract: "Find the parcels a message tracks: shipments with carrier, tracking number, confidence and link.",
        discussion: """
            Numbers are found in the subject, the text and the links, checked against each \
            carrier's formats and check digits (tracking_number_data's specs, plus Taiwan's \
            carriers), and weighed by their context. Add carriers with --carriers or \
            ~/.config/mailpipe/carriers/, and words for the other facts with --facts or \
            ~/.config/mailpipe/shipment-facts.json. See carrier-detect(1) and mailpipe(5).

            Example:
              mime-parse mail.mbox | carrier-detect | jq -c '.shipments[] | {carrier, tracking_number, tracking_url}'
            """,
        version: mailpipeVersion)

    @OptionGroup var common: CommonOptions

    @Option(name: .customLong("carriers"), help: ArgumentHelp("More carriers or context: a JSON file (or folder of them) in tracking_number_data's format (repeatable).", valueName: "file"))
    var carriers: [String] = []

    @Option(name: .customLong("facts"), help: ArgumentHelp("More words for a notice's other facts (customs, cash on delivery, order number, shop, pickup store and address): a JSON file (or folder of them) in shipment-facts.json's shape (repeatable).", valueName: "file"))
    var facts: [String] = []

    @Option(name: .customLong("min-confidence"), help: ArgumentHelp("Report parcels at least this sure, 0 to 1.", valueName: "x"))
    var minConfidence = 0.5

    func validate() throws {
        guard (0...1).contains(minConfidence) else { throw ValidationError("--min-confidence must be between 0 and 1") }
    }

    func run() throws {
        var tool = CarrierDetect()
        tool.carrierFiles = carriers
        tool.factFiles = facts
        tool.minimumConfidence = minConfidence
        FilterRun.main(program: "carrier-detect", options: common) { try tool.run($0) }
    }
}

CarrierDetectCommand.main()
