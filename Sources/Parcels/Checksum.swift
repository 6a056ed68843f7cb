/// The check-digit algorithms of tracking_number_data's specs (`validation.checksum`).
enum Checksum {
    case mod10(evens: Int, odds: Int, reverse: Bool)
    case mod7
    case luhn
    case s10(weights: [Int])
    case mod37_36
    case weightedSum(weights: [Int], modulo1: Int, modulo2: Int)

    /// `serial` and `check` are uppercase ASCII without spaces.
    func isValid(serial: [UInt8], check: [UInt8]) -> Bool {
        guard !serial.isEmpty, !check.isEmpty else { return false }
        switch self {
        case .mod10(let evens, let odds, let reverse):
            let sequence = reverse ? serial.reversed() : serial
            var total = 0
            for (i, c) in sequence.enumerated() {
                // Letters count as (code - 3) mod 10, as UPS's 1Z numbers need.
                let x = isDigit(c) ? Int(c - 0x30) : (Int(c) - 3) % 10
                total += x * (i % 2 == 1 ? odds : evens)
            }
            let r = total % 10
            return digitValue(check) == (r == 0 ? 0 : 10 - r)
        case .mod7:
            guard serial.allSatisfy(isDigit) else { return false }
            var r = 0
            for c in serial { r = (r * 10 + Int(c - 0x30)) % 7 }
            return digitValue(check) == r
        case .luhn:
            guard serial.allSatisfy(isDigit) else { return false }
            var total = 0
            for (i, c) in serial.reversed().enumerated() {
                var x = Int(c - 0x30)
                if i % 2 == 0 { x *= 2 }
                if x > 9 { x -= 9 }
                total += x
            }
            let r = total % 10
            return digitValue(check) == (r == 0 ? 0 : 10 - r)
        case .s10(let weights):
            guard serial.count == weights.count, serial.allSatisfy(isDigit) else { return false }
            let total = zip(serial, weights).reduce(0) { $0 + Int($1.0 - 0x30) * $1.1 }
            let r = total % 11
            return digitValue(check) == (r == 1 ? 0 : r == 0 ? 5 : 11 - r)
        case .mod37_36:
            // ISO 7064 MOD 37,36 over 0-9A-Z; the check character is in the same alphabet.
            var cd = 36
            for c in serial {
                guard let v = alphanumericValue(c) else { return false }
                cd += v
                if cd > 36 { cd -= 36 }
                cd *= 2
                if cd > 36 { cd -= 37 }
            }
            cd = 37 - cd
            if cd == 36 { cd = 0 }
            return check.count == 1 && alphanumericValue(check[0]) == cd
        case .weightedSum(let weights, let modulo1, let modulo2):
            guard serial.allSatisfy(isDigit), modulo1 > 0, modulo2 > 0 else { return false }
            let total = zip(serial, weights).reduce(0) { $0 + Int($1.0 - 0x30) * $1.1 }
            return digitValue(check) == total % modulo1 % modulo2
        }
    }
}

@inline(__always) func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }

private func digitValue(_ check: [UInt8]) -> Int? {
    check.count == 1 && isDigit(check[0]) ? Int(check[0] - 0x30) : nil
}

private func alphanumericValue(_ c: UInt8) -> Int? {
    if isDigit(c) { return Int(c - 0x30) }
    if c &- 0x41 < 26 { return Int(c - 0x41) + 10 }
    return nil
}
