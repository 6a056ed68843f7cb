/// The carrier files built into the program from carriers/ (SwiftPM's embedInCode makes one
/// constant per file but no list of them: a file added there must be added here too, which
/// ParcelsTests checks).
extension PackageResources {
    static let allFiles: [[UInt8]] = [
        amazon_json, canadapost_json, canpar_json, dhl_json, dpd_json, fedex_json, gofo_json, landmark_json,
        lasership_json, old_dominion_json, ontrac_json, purolator_json, s10_json, speedee_json, ups_json,
        usps_json, yodel_json, yunexpress_json,
        taiwan_json, context_json,
    ]
}
