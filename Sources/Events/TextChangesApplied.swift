/// The calendar's rule for appointments moved or cancelled in words (TextChanges): one rule,
/// applied by every calendar made with `EventStore(applying:)` (event-group, the store, a
/// conversation's summary, chat-render). An appointment is named by its sender (the first
/// sender of a forwarded one) and its time.
extension EventStore {
    /// Applies a text appointment that cancels or moves another of the same sender; false for a
    /// booking, and for a change that names no appointment in the calendar (then kept as it is:
    /// a cancellation of one never seen says so, a new time is a booking).
    ///
    /// - A cancellation (`method` CANCEL) cancels the sender's appointment at its time; one of
    ///   a day or a session (its end after its start) every appointment of the sender in it.
    /// - A move replaces the sender's appointment at the old time it states (`replaces`; else
    ///   the sender's one appointment on that day), or, when it states none, the sender's latest
    ///   booking still to come when the mail was sent.
    ///   The appointment keeps its place and its mail; its time is the new one.
    mutating func applyTextChange(_ e: Event, key: String, messageID: String, date: String?, conversationID: String?,
                                  sender: String?) -> Bool {
        if e.method == "CANCEL" {
            // the appointment at its time; a day or a session closed: the sender's in it
            var cancelled = [key]
            // (a prescription reminder on the closed day has the closure's key: not it either)
            if tracked[key]?.event.kind != "appointment" {
                guard let from = e.startLocal, let to = e.endLocal, from < to else { return false }
                let sameSender = Self.textSenderKey(e, messageID: messageID, sender: sender)
                cancelled = order.filter { k in
                    guard k.hasPrefix(sameSender), let t = tracked[k]?.event, t.kind == "appointment", t.status != "cancelled",
                          let s = t.startLocal else { return false }
                    return s >= from && s < to
                }
            }
            guard !cancelled.isEmpty, cancelled.allSatisfy({ tracked[$0]?.event.source == "text" }) else { return false }
            for k in cancelled {
                tracked[k]!.event = Self.cancelled(tracked[k]!.event, by: e)
                tracked[k]!.mention(messageID)
                tracked[k]!.updated = date
            }
            return true
        }
        guard e.replaces != nil || e.evidence.contains("change_word") else { return false }
        // the new time known already: the same mail again, or its confirmation
        guard tracked[key] == nil else { return false }
        let sameSender = Self.textSenderKey(e, messageID: messageID, sender: sender)
        // a prescription to collect is no appointment a clinic moves
        let booked = order.filter { k in
            k.hasPrefix(sameSender) && tracked[k].map { $0.event.kind == "appointment" && $0.event.status != "cancelled" } == true
        }
        func day(_ t: String?) -> Substring { (t ?? "").prefix(10) }
        let target: String
        if let old = e.replaces {
            var probe = e
            (probe.start, probe.startLocal) = (old.start, old.startLocal)
            let k = Self.key(probe, messageID: messageID, sender: sender)
            if booked.contains(k) {
                target = k
            } else {
                // the old time written otherwise than the booking did: its day, if the sender has one appointment on it
                let sameDay = booked.filter { day(tracked[$0]!.event.startLocal) == day(old.startLocal) }
                guard sameDay.count == 1 else { return false }
                target = sameDay[0]
            }
        } else {
            let sent = day(date)
            guard let k = booked.last(where: { day(tracked[$0]!.event.startLocal ?? tracked[$0]!.event.start) >= sent }) else { return false }
            target = k
        }
        guard let place = order.firstIndex(of: target), var moved = tracked.removeValue(forKey: target) else { return false }
        moved.event = e
        moved.mention(messageID)
        moved.updated = date
        if moved.conversationID == nil { moved.conversationID = conversationID }
        tracked[key] = moved
        order[place] = key
        return true
    }

    /// What the keys of one sender's text appointments start with (their time follows).
    static func textSenderKey(_ e: Event, messageID: String, sender: String?) -> String {
        var probe = e
        (probe.start, probe.startLocal) = (nil, nil)
        return key(probe, messageID: messageID, sender: sender)
    }
}
