#if canImport(Glibc)
import Glibc
#endif
import SQLite

/// Batches: every change is made in one, a transaction at whose end what it touched is derived.
extension MailStore {
    /// Runs `body` in one transaction; the conversations and events it touched are derived
    /// again before it commits. The write lock is waited for as long as another writer holds
    /// it; once it is held, nothing else can make the batch busy, so `body` (which may read a
    /// stream) runs once.
    public func batch<T>(_ body: () throws -> T) throws -> T {
        do {
            try beginWriting()
            do {
                change = try changeCounter() + 1
                savedLists.removeAll()
                try db.query("SELECT address FROM lists") { savedLists.insert($0.text(0) ?? "") }
                lists = savedLists
                touchedConversations.removeAll()
                touchedEventGroups.removeAll()
                touchedPages.removeAll()
                touchedParcels = ([], [])
                (conversationTouches, added) = (0, nil)
                removedKeptAttachment = false
                let before = db.totalChanges
                let result = try body()
                try deriveTouched()
                if db.totalChanges != before { try setConfig("change", String(change)) }
                try db.execute("COMMIT")
                attachmentsAfterBatch(committed: true)
                return result
            } catch {
                if db.isInTransaction { try? db.execute("ROLLBACK") }
                attachmentsAfterBatch(committed: false)
                throw error
            }
        } catch let e as SQLiteError {
            throw StoreError.sqlite(path, e)
        }
    }

    /// BEGIN IMMEDIATE: the write lock at once. The busy handler waits a minute for another
    /// writer; past that (a long load), it is asked for again with a growing pause.
    private func beginWriting() throws(SQLiteError) {
        var pause: UInt32 = 10_000
        while true {
            do {
                try db.execute("BEGIN IMMEDIATE")
                return
            } catch where error.isBusy {
                usleep(pause)
                pause = min(pause * 2, 1_000_000)
            }
        }
    }
}
