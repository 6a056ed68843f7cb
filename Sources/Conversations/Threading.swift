/// Threads by References and In-Reply-To, after Jamie Zawinski's algorithm: every id gets a
/// container; a message's parent is its In-Reply-To when that is one valid id, else the last
/// of its References (notmuch's rule); the References chain links each id to the one before
/// it. Ids not in the mailbox are placeholders. A link that would make a cycle is not made.
/// A thread is named by its root's id.
public final class ThreadBuilder {
    private final class Container {
        let id: String
        var parent: Container?
        var hasMessage = false
        init(id: String) { self.id = id }
    }

    private var containers: [String: Container] = [:]

    public init() {}

    private func container(_ id: String) -> Container {
        if let c = containers[id] { return c }
        let c = Container(id: id)
        containers[id] = c
        return c
    }

    /// Adds a message. `references` in header order; `inReplyTo` as the header gave it.
    public func add(id: String, inReplyTo: [String], references: [String]) {
        let me = container(id)
        me.hasMessage = true
        // the References chain: each id is the child of the one before it
        var previous: Container?
        for ref in references where ref != id {
            let c = container(ref)
            if let previous, c.parent == nil, !isAncestor(c, of: previous) { c.parent = previous }
            previous = c
        }
        let parentID = inReplyTo.count == 1 ? inReplyTo[0] : references.last
        guard let parentID, parentID != id else { return }
        let parent = container(parentID)
        // a message's own headers are the best word on its parent: replace a guessed one
        if !isAncestor(me, of: parent) { me.parent = parent }
    }

    /// True when `a` is `b` or one of `b`'s ancestors.
    private func isAncestor(_ a: Container, of b: Container) -> Bool {
        var node: Container? = b
        var steps = 0
        while let n = node, steps < 100_000 {
            if n === a { return true }
            node = n.parent
            steps += 1
        }
        return false
    }

    /// The id of the root of the thread `id` is in.
    public func root(of id: String) -> String {
        guard var node = containers[id] else { return id }
        var steps = 0
        while let parent = node.parent, steps < 100_000 {
            node = parent
            steps += 1
        }
        return node.id
    }
}
