/// What a charset label in mail really means. Mail mislabels text the way the web does, so labels
/// are mapped as the WHATWG Encoding Standard maps them before a converter is opened: text
/// labelled iso-8859-1 is read as windows-1252, gb2312 as gb18030, euc-kr as windows-949, and so on.
public enum CharsetLabel {
    public enum Meaning: Equatable, Sendable {
        case utf8
        /// Plain ASCII was promised; valid UTF-8 is kept as such, else windows-1252.
        case ascii
        case windows1252
        /// No usable label: valid UTF-8 stays UTF-8, else windows-1252.
        case unknown
        /// Opened through ICU under this name.
        case icu(String)
    }

    /// The label as written, cleaned: lowercase, without quotes, spaces or a QP-mangled `3D`.
    public static func clean(_ label: String) -> String {
        var s = Substring(label.lowercased())
        while let first = s.first, first == " " || first == "\t" || first == "\"" || first == "'" { s.removeFirst() }
        while let last = s.last, last == " " || last == "\t" || last == "\"" || last == "'" || last == ";" { s.removeLast() }
        if s.hasPrefix("3d") {  // `charset=3D"utf-8"` from a body that was QP-encoded twice
            s.removeFirst(2)
            while let first = s.first, first == "\"" || first == "'" { s.removeFirst() }
        }
        if let star = s.firstIndex(of: "*") { s = s[..<star] }  // RFC 2231 language suffix: utf-8*en
        return String(s)
    }

    public static func meaning(of label: String) -> Meaning {
        let name = clean(label)
        if let mapped = aliases[name] { return mapped }
        if name.hasPrefix("windows-125") || name.hasPrefix("cp125") || name.hasPrefix("iso-8859-")
            || name.hasPrefix("iso8859-") || name.hasPrefix("iso_8859-") || name.hasPrefix("koi8")
            || name.hasPrefix("iso-2022") || name.hasPrefix("utf-16") || name.hasPrefix("utf-32")
            || name.hasPrefix("ibm") || name.hasPrefix("macintosh") || name.hasPrefix("x-mac")
            || name.hasPrefix("euc-") || name.hasPrefix("big5") || name.hasPrefix("gb")
        {
            return .icu(name)
        }
        if name.isEmpty { return .unknown }
        return .icu(name)
    }

    static let aliases: [String: Meaning] = {
        var table: [String: Meaning] = [:]
        func add(_ meaning: Meaning, _ names: String) {
            for n in names.split(separator: " ") { table[String(n)] = meaning }
        }
        add(.utf8, "utf-8 utf8 unicode-1-1-utf-8 x-unicode20utf8 unicode-2-0-utf-8 utf-8-sig")
        add(.ascii, "us-ascii ascii ansi_x3.4-1968 us iso646-us ascii-us 7bit 8bit")
        add(.windows1252, """
            iso-8859-1 iso8859-1 iso_8859-1 iso-8859-1:1987 iso_8859-1:1987 latin1 latin-1 l1 cp819 ibm819 \
            iso-ir-100 csisolatin1 8859-1 iso88591 windows-1252 cp1252 x-cp1252 ansi win-1252 cp-1252
            """)
        add(.unknown, "x-unknown unknown unknown-8bit x-user-defined default charset none x-binaryenc binary")
        add(.icu("gb18030"), "gb2312 gbk euc-cn x-gbk cp936 csgb2312 chinese gb_2312-80 gb_2312 iso-ir-58 x-euc-cn gb18030 windows-936 ms936")
        add(.icu("windows-949"), "euc-kr ks_c_5601-1987 ks_c_5601 ksc5601 ksc_5601 cp949 windows-949 korean csksc56011987 iso-ir-149 x-windows-949 uhc ks_c_5601-1989 csueckr")
        add(.icu("ibm-943_P15A-2003"), "shift_jis shift-jis sjis x-sjis ms_kanji cp932 windows-31j csshiftjis ms932 x-ms-cp932 csWindows31J s-jis")
        add(.icu("big5-hkscs"), "big5 cn-big5 x-x-big5 csbig5 big-5 big5-hkscs x-big5 cp950 windows-950")
        add(.icu("windows-1254"), "iso-8859-9 iso8859-9 iso_8859-9 latin5 l5 csisolatin5 iso-ir-148 windows-1254 cp1254")
        add(.icu("windows-874"), "tis-620 iso-8859-11 iso8859-11 windows-874 cp874 dos-874")
        add(.icu("iso-2022-jp"), "iso-2022-jp csiso2022jp jis iso-2022-jp-2")
        add(.icu("euc-jp"), "euc-jp x-euc-jp cseucpkdfmtjapanese")
        add(.icu("koi8-r"), "koi8-r koi8r koi cskoi8r koi8")
        add(.icu("koi8-u"), "koi8-u koi8-ru")
        add(.icu("utf-7"), "utf-7 utf7 unicode-1-1-utf-7 x-unicode-2-0-utf-7")
        add(.icu("utf-16le"), "utf-16le unicode unicodefeff ucs-2")
        add(.icu("utf-16be"), "utf-16be unicodefffe")
        return table
    }()
}
