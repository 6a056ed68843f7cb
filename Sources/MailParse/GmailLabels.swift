import UTF8Text
/// Gmail's labels: the Takeout `X-Gmail-Labels` header (comma separated, possibly quoted,
/// possibly RFC 2047 encoded, translated into the account's language) and the API's
/// `labelIds`, both mapped to Gmail's system label ids. User labels are kept as they are.
public enum GmailLabels {
    /// Splits the header value at commas outside double quotes and maps each label.
    public static func fromHeader(_ value: String) -> [String] {
        var result: [String] = []
        var value = value
        value.withUTF8 { b in
            func add(_ range: Range<Int>) {
                // without the quotes and the white space around the name
                let piece = UnsafeBufferPointer(rebasing: b[range])
                var label = piece.contains(UInt8(ascii: "\""))
                    ? String(decoding: piece.filter { $0 != UInt8(ascii: "\"") }, as: UTF8.self) : String(decoding: piece, as: UTF8.self)
                if label.utf8.first.map(Bytes.isWhitespace) == true || label.utf8.last.map(Bytes.isWhitespace) == true {
                    label = label.trimmingSpaces
                }
                let id = systemID(for: label)
                if !id.isEmpty && !result.contains(id) { result.append(id) }
            }
            var start = 0
            var inQuote = false
            for (k, c) in b.enumerated() {
                if c == UInt8(ascii: "\"") {
                    inQuote.toggle()
                } else if c == UInt8(ascii: ","), !inQuote {
                    add(start..<k)
                    start = k + 1
                }
            }
            add(start..<b.count)
        }
        return result
    }

    /// A label name mapped to its system id (`Inbox`, `Posteingang` → `INBOX`), else itself.
    public static func systemID(for label: String) -> String {
        if let id = table[label.utf8.allSatisfy({ $0 < 0x80 }) ? ASCII.lowercased(label) : label.lowercased()] { return id }
        return label
    }

    static let table: [String: String] = {
        var t: [String: String] = [:]
        func add(_ id: String, _ names: [String]) {
            t[id.lowercased()] = id
            for n in names { t[n.lowercased()] = id }
        }
        add("INBOX", ["Inbox", "Posteingang", "Boîte de réception", "Bandeja de entrada", "Caixa de entrada",
                      "Posta in arrivo", "Postvak IN", "Inkorgen", "Indbakke", "Innboks", "Odebrane", "Входящие",
                      "Gelen Kutusu", "受信トレイ", "받은편지함", "收件匣", "收件箱"])
        add("SENT", ["Sent", "Sent Mail", "Sent Messages", "Gesendet", "Messages envoyés", "Envoyés", "Enviados",
                     "Enviado", "E-mails enviados", "Posta inviata", "Inviati", "Verzonden", "Skickat", "Sendt",
                     "Wysłane", "Отправленные", "Gönderilmiş Postalar", "送信済みメール", "送信済み",
                     "보낸편지함", "寄件備份", "已寄郵件", "已发邮件", "已發送郵件"])
        add("UNREAD", ["Unread", "Ungelesen", "Non lus", "No leídos", "Não lidos", "Non letti", "Ongelezen",
                       "Oläst", "Ulæst", "Ulest", "Nieprzeczytane", "Непрочитанные", "Okunmamış", "未読", "읽지 않음",
                       "未讀取", "未讀", "未读"])
        add("STARRED", ["Starred", "Markiert", "Suivis", "Destacados", "Com estrela", "Speciali", "Met ster",
                        "Stjärnmärkt", "Stjernemarkeret", "Stjernemerket", "Oznaczone gwiazdką", "Помеченные",
                        "Yıldızlı", "スター付き", "별표편지함", "已加星號", "已加星标"])
        add("IMPORTANT", ["Important", "Wichtig", "Importants", "Importantes", "Importante", "Belangrijk", "Viktigt",
                          "Vigtigt", "Viktig", "Ważne", "Важные", "Önemli", "重要"])
        add("SPAM", ["Spam", "Junk", "Pourriel", "Спам", "迷惑メール", "스팸", "垃圾郵件", "垃圾邮件"])
        add("TRASH", ["Trash", "Bin", "Papierkorb", "Corbeille", "Papelera", "Lixeira", "Cestino", "Prullenbak",
                      "Papperskorgen", "Papirkurv", "Papirkurv", "Kosz", "Корзина", "Çöp Kutusu", "ゴミ箱", "휴지통",
                      "垃圾桶", "已删除邮件"])
        add("DRAFT", ["Draft", "Drafts", "Entwürfe", "Brouillons", "Borradores", "Rascunhos", "Bozze", "Concepten",
                      "Utkast", "Kladder", "Wersje robocze", "Черновики", "Taslaklar", "下書き", "임시보관함", "草稿"])
        add("CHAT", ["Chat", "Chats", "チャット", "채팅", "聊天", "即時通訊"])
        add("CATEGORY_PERSONAL", ["Category Personal", "Category Primary", "Primary", "Hauptkategorie"])
        add("CATEGORY_PROMOTIONS", ["Category Promotions", "Promotions", "Werbung", "Promociones", "Promoções",
                                    "Promozioni", "Reclame", "Kampanjer", "プロモーション", "프로모션", "促銷內容", "推广"])
        add("CATEGORY_SOCIAL", ["Category Social", "Social", "Soziale Netzwerke", "Réseaux sociaux", "Redes sociales",
                                "ソーシャル", "소셜", "社交網路", "社交"])
        add("CATEGORY_UPDATES", ["Category Updates", "Updates", "Benachrichtigungen", "Notifications", "Actualizaciones",
                                 "Atualizações", "Aggiornamenti", "新着", "업데이트", "最新快訊", "动态"])
        add("CATEGORY_FORUMS", ["Category Forums", "Forums", "Foren", "Forum", "Foros", "Fóruns", "フォーラム", "포럼",
                                "論壇", "论坛"])
        return t
    }()
}
