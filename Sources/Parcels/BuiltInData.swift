import JSONLines

/// The carrier files built into the program from carriers/ (SwiftPM's embedInCode makes one
/// constant per file but no list of them: a file added there must be added here too, which
/// ParcelsTests checks).
extension PackageResources {
    static let allFiles: [[UInt8]] = [
        amazon_json, canadapost_json, canpar_json, dhl_json, dpd_json, fedex_json, gofo_json, landmark_json,
        lasership_json, old_dominion_json, ontrac_json, purolator_json, s10_json, speedee_json, ups_json,
        usps_json, yodel_json, yunexpress_json,
        taiwan_json, japan_json, crossborder_json, context_json, statuses_json,
    ]
}

/// The carriers' names as their built-in files give them, by courier code ("tcat" is
/// "T-Cat (黑貓宅急便)"), for tools that show shipments to people.
public enum CarrierNames {
    public static let builtIn: [String: String] = {
        var names: [String: String] = [:]
        for file in PackageResources.allFiles {
            guard let root = try? JSONValue.parse(file) else { continue }
            let couriers = root["courier_code"] != nil ? [root] : root["couriers"]?.arrayValue ?? []
            for c in couriers {
                if let code = c["courier_code"]?.stringValue, let name = c["name"]?.stringValue { names[code] = name }
            }
        }
        return names
    }()
}
