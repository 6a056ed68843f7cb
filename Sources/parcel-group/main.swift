import ArgumentParser
import ParcelOptions
import Parcels
import UnixFilter

struct ParcelGroupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parcel-group",
        abstract: "Gather a mailbox's shipments into parcels: one record per parcel, with its latest status and its history.",
        discussion: """
            Reads records that carrier-detect has annotated and writes one record per parcel \
            (a carrier and tracking number, or a store pickup known only by its code): its status \
            (the latest by when it happened; a finished parcel is not reopened by mail that comes \
            late), the statuses its mail told, its pickup store, code and deadline, the expected \
            delivery date and its messages. Newest news first. See parcel-group(1).

            Example:
              mime-parse mail.mbox | text-extract | carrier-detect | parcel-group --open | jq -r '[.status, .carrier, .tracking_number] | @tsv'
            """,
        version: mailpipeVersion)

    @OptionGroup var common: CommonOptions

    @OptionGroup var parcels: ParcelFilterOptions

    func run() throws {
        let tool = parcels.filter
        FilterRun.main(program: "parcel-group", options: common) { try tool.run($0) }
    }
}

ParcelGroupCommand.main()
