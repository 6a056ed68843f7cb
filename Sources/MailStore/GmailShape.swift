import JSONLines

/// The shapes Gmail's API documents for the responses `mailstore history` reads. A response is
/// checked before anything of the run is applied: one page that is not what the API sends (a
/// proxy's error page, a truncated body, a changed API) must change nothing, since a full sync
/// deletes what its pages do not list.
enum GmailShape {
    /// What is wrong with `response`, or nil when it is one of the responses mailstore reads.
    static func problem(_ response: JSONValue) -> String? {
        guard case .object = response else { return "not a Gmail API response (a JSON object)" }
        if response["id"] != nil { return message(response, at: "") }
        if response["messages"] != nil || response["resultSizeEstimate"] != nil { return listPage(response) }
        if response["history"] != nil || response["historyId"] != nil { return historyOrProfile(response) }
        return "not a Gmail API response mailstore reads: it has no 'history', 'historyId', 'id' or 'messages'"
    }

    /// users.getProfile's response: an address and a historyId.
    static func isProfile(_ response: JSONValue) -> Bool {
        response["emailAddress"]?.stringValue != nil && response["history"] == nil && MailStore.historyText(response["historyId"]) != nil
    }

    static func isListPage(_ response: JSONValue) -> Bool {
        response["id"] == nil && (response["messages"] != nil || response["resultSizeEstimate"] != nil)
    }

    /// A message resource (messages.get, or an entry of a list or a history record).
    private static func message(_ m: JSONValue, at path: String) -> String? {
        guard case .object = m else { return "\(path.isEmpty ? "the response" : path) is not an object" }
        guard let id = m["id"]?.stringValue, !id.isEmpty else { return "\(path)id is not a message id (a string)" }
        if let thread = m["threadId"], thread.stringValue == nil { return "\(path)threadId is not a string" }
        if let raw = m["raw"], raw.stringValue == nil { return "\(path)raw is not a string" }
        return strings(m["labelIds"], at: path + "labelIds")
    }

    private static func listPage(_ page: JSONValue) -> String? {
        if let messages = page["messages"] {
            guard let list = messages.arrayValue else { return "messages is not an array" }
            for (k, m) in list.enumerated() {
                if let problem = message(m, at: "messages[\(k)].") { return problem }
            }
        }
        if let estimate = page["resultSizeEstimate"], UInt64(estimate.numberText ?? "") == nil {
            return "resultSizeEstimate is not a count"
        }
        if let token = page["nextPageToken"], token.stringValue == nil { return "nextPageToken is not a string" }
        return nil
    }

    /// users.history.list's response, or users.getProfile's.
    private static func historyOrProfile(_ response: JSONValue) -> String? {
        guard MailStore.historyText(response["historyId"]) != nil else { return "historyId is missing or not a history id" }
        if let address = response["emailAddress"], address.stringValue == nil { return "emailAddress is not a string" }
        if let token = response["nextPageToken"], token.stringValue == nil { return "nextPageToken is not a string" }
        guard let history = response["history"] else { return nil }
        guard let records = history.arrayValue else { return "history is not an array" }
        for (k, record) in records.enumerated() {
            let at = "history[\(k)]"
            guard case .object = record else { return "\(at) is not an object" }
            guard MailStore.historyText(record["id"]) != nil else { return "\(at).id is missing or not a history id" }
            for field in ["messages", "messagesAdded", "messagesDeleted", "labelsAdded", "labelsRemoved"] {
                guard let entries = record[field] else { continue }
                guard let list = entries.arrayValue else { return "\(at).\(field) is not an array" }
                for (j, entry) in list.enumerated() {
                    let path = "\(at).\(field)[\(j)]"
                    if field == "messages" {
                        if let problem = message(entry, at: path + ".") { return problem }
                        continue
                    }
                    guard let m = entry["message"] else { return "\(path).message is missing" }
                    if let problem = message(m, at: path + ".message.") { return problem }
                    if field.hasPrefix("labels") {
                        guard entry["labelIds"] != nil else { return "\(path).labelIds is missing" }
                        if let problem = strings(entry["labelIds"], at: path + ".labelIds") { return problem }
                    }
                }
            }
        }
        return nil
    }

    private static func strings(_ value: JSONValue?, at path: String) -> String? {
        guard let value else { return nil }
        guard let list = value.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else { return "\(path) is not an array of strings" }
        return nil
    }
}

extension JSONValue {
    var numberText: String? {
        if case .number(let n) = self { return n }
        return nil
    }
}
