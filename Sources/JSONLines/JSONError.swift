/// Malformed JSON: what is wrong and at which byte of the line.
public struct JSONError: Error, Equatable, CustomStringConvertible, Sendable {
    public var message: String
    public var offset: Int

    public init(_ message: String, at offset: Int) {
        self.message = message
        self.offset = offset
    }

    public var description: String { "invalid JSON at byte \(offset + 1): \(message)" }
}
