import Testing
import JSONLines
@testable import Parcels

/// Issue 46: status words read in their sentence, customs holds, and the cross-border carriers'
/// numbers. Sentences written for these tests, before the change they test.
@Suite struct StatusInContext {
    func status(_ subject: String, _ text: String, from: String = "orders@shop.example", date: String = "2026-03-10T02:00:00Z") throws -> String? {
        try shipments(subject: subject, text: text, from: from, date: date).first?.status.status
    }

    @Test func aReturnWarningInAPickupReminderIsNoReturn() throws {
        #expect(try status("Waiting for you", "Your parcel 1Z999AA10123456784 is ready for collection. Parcels not collected within 14 days are returned to sender.") == "available_for_pickup")
        #expect(try status("お預かりのお知らせ", "お問い合わせ番号 1Z999AA10123456784\nお荷物を郵便局でお預かりしております。保管期限を過ぎますと、差出人へ返送いたします。") == "available_for_pickup")
        #expect(try status("到店通知", "追蹤號碼 1Z999AA10123456784 已到店，未取件之包裹將於期限後退回寄件人。") == "available_for_pickup")
        // the return itself is still a return
        #expect(try status("Returned", "Your parcel 1Z999AA10123456784 was not collected and has been returned to sender.") == "returned")
    }

    @Test func aRedeliveryBookedIsOnItsWayAgain() throws {
        #expect(try status("Redelivery booked", "Sorry we missed you. Your redelivery has been booked for 12 March. Tracking number 1Z999AA10123456784") == "in_transit")
        #expect(try status("再配達受付", "再配達のご依頼を承りました。お問い合わせ番号 1Z999AA10123456784") == "in_transit")
        #expect(try status("預約成功", "您已成功預約再次配送，追蹤號碼 1Z999AA10123456784。") == "in_transit")
        // a missed delivery with nothing booked is still a failed attempt
        #expect(try status("We missed you", "We missed you today. Tracking number 1Z999AA10123456784. Book a redelivery online.") == "attempt_failed")
    }

    @Test func whatHappensIfNobodyIsHomeIsNoFailedAttempt() throws {
        #expect(try status("Out for delivery", "Your package 1Z999AA10123456784 is out for delivery. If nobody home, the driver will leave a notice.") == "out_for_delivery")
        #expect(try status("お届け予定", "本日お届け予定です。お問い合わせ番号 1Z999AA10123456784\nご不在の場合は、不在連絡票を投函いたします。") == "out_for_delivery")
    }

    @Test func anAddressProblemIsAnException() throws {
        #expect(try status("Address problem", "Tracking number 1Z999AA10123456784: we couldn't deliver because the address is incomplete. Otherwise it will be returned to sender.") == "exception")
        #expect(try status("宛先不明", "お問い合わせ番号 1Z999AA10123456784 宛先不明のため、お届けできませんでした。") == "exception")
    }

    @Test func aSameDayDeliveryOnItsWayIsOutForDelivery() throws {
        #expect(try status("Greenleaf Grocers", "Your same-day delivery is on its way! UPS tracking number 1Z999AA10123456784") == "out_for_delivery")
        #expect(try status("今日宅配", "您的訂單今日宅配到府，追蹤號碼 1Z999AA10123456784，司機正在前往。") == "out_for_delivery")
    }

    @Test func deliveredToAStoreOrLockerWaitsThere() throws {
        #expect(try status("到店", "您的包裹（追蹤號碼 1Z999AA10123456784）已送達統一超商福美門市。") == "available_for_pickup")
        #expect(try status("Locker", "Your parcel 1Z999AA10123456784 has been delivered to the locker at Riverside.") == "available_for_pickup")
        #expect(try status("ロッカー", "お問い合わせ番号 1Z999AA10123456784 のお荷物を宅配ロッカーに配達しました。") == "available_for_pickup")
        // delivered to a door is delivered
        #expect(try status("Delivered", "Your parcel 1Z999AA10123456784 has been delivered to your front door.") == "delivered")
    }
}

@Suite struct CustomsHold {
    func status(_ text: String) throws -> String? {
        try shipments(subject: "Update", text: text, date: "2026-03-10T02:00:00Z").first?.status.status
    }

    @Test func dutyToPayHoldsTheParcel() throws {
        #expect(try status("Your parcel 1Z999AA10123456784 is being held at customs. Duties and taxes must be paid.") == "customs_hold")
        #expect(try status("There's a fee to pay before we can deliver your item 1Z999AA10123456784.") == "customs_hold")
        #expect(try status("您的包裹 1Z999AA10123456784 需繳納關稅 NT$350 後始能投遞。") == "customs_hold")
        #expect(try status("お問い合わせ番号 1Z999AA10123456784 お荷物は税関で保留されています。") == "customs_hold")
    }

    @Test func clearedCustomsIsNoHold() throws {
        #expect(try status("Your parcel 1Z999AA10123456784 has cleared customs and is in transit.") == "in_transit")
        #expect(try status("您的包裹 1Z999AA10123456784 已完成通關，目前配送中。") == "in_transit")
        #expect(try status("Your package 1Z999AA10123456784 was delivered. Duties and taxes were paid by the sender.") == "delivered")
    }
}

@Suite struct CrossBorderNumbers {
    @Test func cainiaosNumbers() throws {
        #expect(numbers(try shipments(text: "Shipped by AliExpress Standard Shipping. Tracking number: LP00412345678901")) == ["cainiao:LP00412345678901"])
        #expect(numbers(try shipments(text: "菜鸟运单号：LP00587654321034")) == ["cainiao:LP00587654321034"])
        #expect(numbers(try shipments(text: "Cainiao tracking number: LP123456785CN")) == ["cainiao:LP123456785CN"])
        // an S10 number from China with no word of Cainiao stays China Post's S10
        #expect(numbers(try shipments(text: "Registered mail RR908172638CN")) == ["s10:RR908172638CN"])
        // an order number shaped like LP… is an order's
        #expect(try shipments(text: "Order number: LP00412345678901").isEmpty)
    }

    @Test func yanwensNumbers() throws {
        #expect(numbers(try shipments(text: "Shipped with Yanwen. Tracking number: UG123456789YP")) == ["yanwen:UG123456789YP"])
        #expect(try shipments(text: "Use coupon UG123456789YP for 10% off.").isEmpty)
    }

    @Test func taiwanExpresssNumbers() throws {
        #expect(numbers(try shipments(text: "台灣快遞 託運單號：6101234567")) == ["taiwan_express:6101234567"])
        #expect(try shipments(text: "台灣快遞客服專線：0223456789").isEmpty)
        // a labelled number with no carrier named stays nobody's
        #expect(try shipments(text: "託運單號：6101234567").isEmpty)
    }
}

@Suite struct NumbersKnownFromEarlierMessages {
    func shipments(_ detector: ParcelDetector, subject: String, text: String, from: String) throws -> [Shipment] {
        try CarrierDetect.shipments(in: mailRecord(subject: subject, text: text, from: from, date: "2026-03-10T02:00:00Z"), detector)
    }

    @Test func aShopsLaterNoticeThatNamesNoCarrierIsTheParcelsOfTheEarlierOne() throws {
        let detector = ParcelDetector(specs: .builtIn())
        // on its own, a labelled 12-digit number with no carrier named is nobody's
        #expect(try shipments(ParcelDetector(specs: .builtIn()), subject: "已送達", text: "貨件 905123456789 已配達，簽收人：管理室。", from: "shop@komori.example").isEmpty)
        let first = try shipments(detector, subject: "已出貨", text: "您的包裹已交由黑貓宅急便配送。\n託運單號：905123456789", from: "shop@komori.example")
        #expect(numbers(first) == ["tcat:905123456789"])
        let later = try shipments(detector, subject: "已送達", text: "貨件 905123456789 已配達，簽收人：管理室。", from: "shop@komori.example")
        #expect(numbers(later) == ["tcat:905123456789"] && later.first?.evidence.contains("earlier_message") == true)
        #expect(later.first?.status.status == "delivered")
        // an unlabelled number is not taken on memory alone
        #expect(try shipments(detector, subject: "Hi", text: "see 905123456789", from: "friend@example.net").isEmpty)
    }
}
