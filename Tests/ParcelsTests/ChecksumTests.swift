import Testing
@testable import Parcels

private func valid(_ c: Checksum, _ serial: String, _ check: String) -> Bool {
    c.isValid(serial: Array(serial.utf8), check: Array(check.utf8))
}

@Suite struct Checksums {
    @Test func mod10WithLettersAsUPSCountsThem() {
        let ups = Checksum.mod10(evens: 1, odds: 2, reverse: false)
        #expect(valid(ups, "999AA1012345678", "4"))  // 1Z999AA10123456784
        #expect(!valid(ups, "999AA1012345678", "5"))
    }

    @Test func mod10ReversedAsUSPSIMpb() {
        let impb = Checksum.mod10(evens: 3, odds: 1, reverse: true)
        #expect(valid(impb, "940011189922385343574", "6"))  // tracking_number_data's USPS test number
        #expect(!valid(impb, "940011189922385343574", "7"))
    }

    @Test func mod7() {
        #expect(valid(.mod7, "331881002", "5"))  // DHL Express 3318810025
        #expect(!valid(.mod7, "331881002", "6"))
        #expect(!valid(.mod7, "33188100A", "5"))
    }

    @Test func s10UsesItsOwnRemainders() {
        let s10 = Checksum.s10(weights: [8, 6, 4, 2, 3, 5, 9, 7])
        #expect(valid(s10, "12345678", "5"))  // RB123456785GB
        #expect(!valid(s10, "12345678", "6"))
        // remainder 0 gives 5, remainder 1 gives 0
        #expect(valid(s10, "00000000", "5"))
    }

    @Test func luhn() {
        #expect(valid(.luhn, "7992739871", "3"))  // the textbook example
        #expect(!valid(.luhn, "7992739871", "4"))
    }

    @Test func mod37_36AsDPD() {
        #expect(valid(.mod37_36, "09980000020033", "F"))  // DPD 09 9800 0002 0033 F
        #expect(valid(.mod37_36, "09980000020034", "D"))
        #expect(!valid(.mod37_36, "09980000020033", "D"))
        #expect(!valid(.mod37_36, "0998000002003!", "F"))
    }

    @Test func weightedSumAsFedEx12() {
        let fedex = Checksum.weightedSum(weights: [3, 1, 7, 3, 1, 7, 3, 1, 7, 3, 1], modulo1: 11, modulo2: 10)
        #expect(valid(fedex, "98690000512", "1"))  // 9*3+8*1+6*7+9*3+0+0+0+0+5*7+1*3+2*1 = 144; 144 % 11 % 10 = 1
        #expect(!valid(fedex, "98690000512", "2"))
    }

    @Test func checkMustBeOneCharacter() {
        #expect(!valid(.luhn, "7992739871", ""))
        #expect(!valid(.luhn, "7992739871", "33"))
        #expect(!valid(.mod7, "", "0"))
    }
}
