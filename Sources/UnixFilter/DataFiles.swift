#if canImport(Glibc)
import Glibc
#endif
import JSONLines

/// Where a tool's data lives beside the defaults built into it: files users add to extend
/// carriers, signals and patterns without touching the code.
public enum DataFiles {
    /// `$XDG_CONFIG_HOME/mailpipe` (by default `~/.config/mailpipe`), nil when neither is set.
    public static var userDirectory: String? {
        if let xdg = getenv("XDG_CONFIG_HOME"), xdg.pointee != 0 { return String(cString: xdg) + "/mailpipe" }
        if let home = getenv("HOME"), home.pointee != 0 { return String(cString: home) + "/.config/mailpipe" }
        return nil
    }

    /// The user's files for `name` that exist: `<dir>/<name>` if it is a file, or the `*.json`
    /// files inside it, sorted, if it is a directory.
    static func userFiles(_ name: String) -> [String] {
        guard let dir = userDirectory else { return [] }
        return expand(dir + "/" + name, missingIsEmpty: true)
    }

    /// The files that extend a tool's built-in data, in the order they apply: the user's
    /// `<dir>/<name>` for each of `names` (a file, or a folder of `*.json`), then each path
    /// named on the command line.
    static func paths(user names: [String], extra: [String]) -> [String] {
        names.flatMap { userFiles($0) } + extra.flatMap { expand($0) }
    }

    public struct FormatError: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// A data file that is a JSON object of string lists (`{"key": ["a", "b"]}`; a "comment"
    /// member is skipped): its keys and lists, in file order.
    public static func stringLists(_ json: [UInt8]) throws(FormatError) -> [(key: String, values: [String])] {
        let root: JSONValue
        do { root = try JSONValue.parse(json) } catch { throw FormatError(error.description) }
        guard case .object(let members) = root else { throw FormatError("expected a JSON object") }
        var lists: [(key: String, values: [String])] = []
        for (key, value) in members where key != "comment" {
            guard let items = value.arrayValue else { throw FormatError("\(key): expected an array of strings") }
            var strings: [String] = []
            for item in items {
                guard let s = item.stringValue else { throw FormatError("\(key): expected an array of strings") }
                strings.append(s)
            }
            lists.append((key, strings))
        }
        return lists
    }

    /// A path named on the command line: a file, or a directory of `*.json` files (sorted).
    static func expand(_ path: String, missingIsEmpty: Bool = false) -> [String] {
        var st = stat()
        guard stat(path, &st) == 0 else { return missingIsEmpty ? [] : [path] }
        guard (st.st_mode & S_IFMT) == S_IFDIR, let d = opendir(path) else { return [path] }
        defer { closedir(d) }
        var names: [String] = []
        while let entry = readdir(d) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".json") && !name.hasPrefix(".") { names.append(path + "/" + name) }
        }
        return names.sorted()
    }

    /// Reads a whole data file; the error is ready for stderr.
    public static func read(_ path: String) throws(InputError) -> [UInt8] {
        let input = try Input.open(path)
        defer { input.close() }
        do { return try readWholeFile(fd: input.fd) } catch { throw InputError(path: path, errno: error.errno) }
    }

    /// Reads each file in turn and hands its bytes to `add`. A file that cannot be read, or
    /// that `add` refuses, is reported as `program: path: message` and ends the run: 66 or 74
    /// when it cannot be read, 65 when its contents are wrong.
    static func load(_ paths: [String], diagnostics: Diagnostics, _ add: ([UInt8]) throws -> Void) throws {
        for path in paths {
            do {
                try add(try read(path))
            } catch let e as InputError {
                diagnostics.error(e.description, file: path)
                throw Exit(e.status)
            } catch {
                diagnostics.error("\(error)", file: path)
                throw Exit(.dataError)
            }
        }
    }

    /// A tool's built-in `data` extended by the user's files (`<dir>/<name>` for each of
    /// `names`, a file or a folder of `*.json`), then by each file named on the command line,
    /// as `load` reads them.
    public static func extend<Data: ExtensibleData>(_ data: Data, user names: [String], extra: [String],
                                                  diagnostics: Diagnostics) throws -> Data {
        var data = data
        try load(paths(user: names, extra: extra), diagnostics: diagnostics) { try data.add(json: $0) }
        return data
    }
}

/// Data built into a tool that users extend with JSON files of the same shape.
public protocol ExtensibleData {
    mutating func add(json: [UInt8]) throws
}
