import Testing
import JSONLines
@testable import Parcels

/// The shipment carrier-detect finds in a mail from `name <address>` (the first, or nil).
private func shipment(subject: String, text: String, name: String? = nil, from: String = "orders@shop.example",
                      date: String = "2026-03-18T06:20:00Z", facts: ShipmentFactWords = .builtIn) throws -> Shipment? {
    try CarrierDetect.shipments(in: mailRecord(subject: subject, text: text, name: name, from: from, date: date),
                                ParcelDetector(specs: .builtIn(), facts: facts)).first
}

private func money(_ amount: Int, _ currency: String) -> Money { Money(hundredths: amount, currency: currency) }

@Suite struct MoneyAsWritten {
    @Test func separatorsGroupThousandsOrMarkAFraction() {
        #expect(MoneyReader.hundredths(Array("1,280".utf16), currency: "TWD") == 128000)
        #expect(MoneyReader.hundredths(Array("12,50".utf16), currency: "EUR") == 1250)
        #expect(MoneyReader.hundredths(Array("1.234,56".utf16), currency: "EUR") == 123456)
        #expect(MoneyReader.hundredths(Array("45.2".utf16), currency: "USD") == 4520)
        #expect(money(4520, "USD").jsonNumber == "45.2" && money(800, "GBP").jsonNumber == "8" && money(1205, "EUR").jsonNumber == "12.05")
    }

    @Test func aDollarSignIsTaiwansInATaiwaneseMailAndAYenSignChinasInAMainlandOne() {
        let reader = MoneyReader(words: .builtIn)
        func read(_ s: String, domain: String = "shop.example") -> Money? {
            let text = Array(s.utf16)
            return reader.first(in: asciiLowered(text), 0..<text.count, context: reader.context(text: text, senderDomain: domain))?.money
        }
        #expect(read("貨到付款 應付金額：$1,050") == money(105000, "TWD"))
        #expect(read("Amount due on delivery: $1,050") == money(105000, "USD"))
        #expect(read("Amount due: $45", domain: "shop.example.tw") == money(4500, "TWD"))
        #expect(read("关税 ¥120，请尽快支付") == money(12000, "CNY"))
        #expect(read("関税 ¥1,200 をお支払いください") == money(120000, "JPY"))
        #expect(read("运费 300元") == money(30000, "CNY") && read("運費 300 元") == money(30000, "TWD"))
        #expect(read("order USD45") == nil || read("order USD45") == money(4500, "USD"))
        #expect(read("JUSD 45") == nil)
    }
}

@Suite struct PickupStores {
    @Test func aStoreIsReadFromRunningText() throws {
        let s = try shipment(subject: "到店通知", text: "您的包裹已到 全家 中和福美店，請攜帶證件取貨。\n全家 配送編號：20564718924")
        #expect(s?.pickup?.store == "全家 中和福美店")
        let seven = try shipment(subject: "到店", text: "已送達 7-ELEVEN 福美門市，請取件。交貨便代碼：880314672209")
        #expect(seven?.pickup?.store == "7-ELEVEN 福美門市")
    }

    @Test func aGreetingIsNoStore() throws {
        let s = try shipment(subject: "【交貨便】商品已到店，請於 7 日內取件取件門市",
                             text: "Hi jennyhughes_tw\n交貨便服務代碼：86027135-4128", from: "service@myship.7-11.com.tw")
        #expect(s != nil && s?.pickup?.store == nil)
        // Chinese and Japanese greet after the name; the chain and branch later in the text are the store
        let after = try shipment(subject: "您的包裹已送達取件門市",
                                 text: "陳怡君 您好：\n您的包裹已送達 7-ELEVEN 大安門市，交貨便代碼：880314672209")
        #expect(after?.pickup?.store == "7-ELEVEN 大安門市")
        let sama = try shipment(subject: "お受け取り店舗のご案内 受取店舗",
                                text: "山田様 こんにちは\n全家 中和福美店 配送編號：20564718924")
        #expect(sama?.pickup?.store != "山田様 こんにちは")
    }

    @Test func aChainWithoutABranchIsNoStore() throws {
        let s = try shipment(subject: "出貨", text: "商品將送達全家便利商店，使用全家店到店服務。\n全家 配送編號：20564718924")
        #expect(s?.pickup?.store == nil)
    }

    @Test func theStoresAddressButNotTheCustomers() throws {
        let s = try shipment(subject: "到店", text: "取件門市：福美門市\n地址：新北市中和區福美路88號\n交貨便代碼：880314672209")
        #expect(s?.pickup?.address == "新北市中和區福美路88號")
        let home = try shipment(subject: "配達", text: "取件門市：福美門市\n收件地址：台北市信義區松仁路1號\n交貨便代碼：880314672209")
        #expect(home?.pickup?.store == "福美門市" && home?.pickup?.address == nil)
    }
}

@Suite struct CustomsAndCashOnDelivery {
    @Test func dutyAndTheDateToPayBy() throws {
        let uk = try shipment(subject: "Fee to pay", text: "Your item LX204819374GB is held: fee to pay £8.00 (import VAT and customs charges).\nPay by 14 March 2026.",
                              from: "no-reply@royalmail.com")
        #expect(uk?.facts.customs == .init(amount: money(800, "GBP"), payBy: "2026-03-14"))
        let tw = try shipment(subject: "海關通知", text: "包裹 RR123456785TW 需繳納關稅 NT$350 方可放行，請於 115/03/30 前完成繳費。")
        #expect(tw?.facts.customs == .init(amount: money(35000, "TWD"), payBy: "2026-03-30"))
    }

    @Test func dutiesThatMayApplyAreNoCustomsNotice() throws {
        let s = try shipment(subject: "Shipped", text: "Tracking number: RR123456785TW\nTotal: $45.00\nImport duties and taxes may apply.")
        #expect(s != nil && s?.facts.customs == nil)
    }

    @Test func anAmountAfterTheWordsOrThePaymentMethod() throws {
        let s = try shipment(subject: "出貨", text: "黑貓宅急便 託運單號：905123456781\n貨到付款 NT$1,280")
        #expect(s?.facts.cashOnDelivery == money(128000, "TWD"))
        let method = try shipment(subject: "出貨", text: "付款方式：貨到付款\n訂單金額：NT$890\n黑貓宅急便 託運單號：905123456781")
        #expect(method?.facts.cashOnDelivery == money(89000, "TWD"))
    }

    @Test func cashOnDeliveryAsAnOptionOrAThresholdIsNone() throws {
        let s = try shipment(subject: "出貨", text: "付款方式：信用卡、ATM、貨到付款\n貨到付款滿 NT$499 免運\n訂單金額：NT$890\n黑貓宅急便 託運單號：905123456781")
        #expect(s != nil && s?.facts.cashOnDelivery == nil)
    }
}

@Suite struct OrderAndShop {
    @Test func theOrderNumberAfterItsWords() throws {
        let s = try shipment(subject: "Your order has shipped", text: "Order total: $45\nOrder #MP-10442\nTracking number: RA102938478US")
        #expect(s?.facts.orderNumber == "MP-10442")
        let ja = try shipment(subject: "発送", text: "ご注文番号：SZ-240417-009\nお問い合わせ番号：EJ409172644JP")
        #expect(ja?.facts.orderNumber == "SZ-240417-009")
    }

    @Test func theShopFromABracketOrTheSendersName() throws {
        let bracket = try shipment(subject: "【綠野生活館】訂單已出貨", text: "黑貓宅急便 託運單號：905123456781", name: "通知中心")
        #expect(bracket?.facts.shop == "綠野生活館")
        let named = try shipment(subject: "出貨", text: "黑貓宅急便 託運單號：905123456781", name: "momo購物網 客服")
        #expect(named?.facts.shop == "momo購物網")
        let header = try shipment(subject: "出貨", text: "黑貓宅急便 託運單號：905123456781", name: "蝦皮購物 <info@mail.shopee.tw>", from: "")
        #expect(header?.facts.shop == "蝦皮購物")
        let carrier = try shipment(subject: "Delivered", text: "UPS 1Z999AA10123456784", name: "UPS", from: "mcinfo@ups.com")
        #expect(carrier != nil && carrier?.facts.shop == nil)
        let person = try shipment(subject: "包裹", text: "掛號 RR123456785TW", name: "Jenny Hughes", from: "jenny@gmail.com")
        #expect(person != nil && person?.facts.shop == nil)
    }

    @Test func wordsAddedAsData() throws {
        var words = ShipmentFactWords.builtIn
        try words.add(json: Array(#"{"cash_on_delivery_words": ["pay the courier"]}"#.utf8))
        let s = try shipment(subject: "Shipped", text: "Tracking number: RA102938478US\nPay the courier $12.00", facts: words)
        #expect(s?.facts.cashOnDelivery == money(1200, "USD"))
        #expect(throws: (any Error).self) { try words.add(json: Array(#"{"currencies": {"X$": "dollars"}}"#.utf8)) }
    }
}
