"""The stand-in for Gmail's API (gmail_standin.py) checked against Gmail's own description: every
answer it gives, in every case the sync tests make it give, has the shape of the gmail v1
discovery document's schemas (written down below for the fields the stand-in sends: the
discovery document itself is not in the repository), its errors are Google's envelope, and it
refuses what Gmail refuses. A stand-in that drifted from Gmail would let a client defect pass."""
import base64
import json
import urllib.error
import urllib.parse
import urllib.request

import pytest

from conftest import SAMPLE
from gmail_standin import FIRST_HISTORY_ID, FORBIDDEN_REASONS, GmailStandIn

# gmail v1's schemas (discovery document, "schemas"), the fields of each with their type: a
# schema's name, [item type] for an array; "uint64" and "int64" are decimal strings, "int32" and
# "uint32" JSON integers, "bytes" base64url text (the discovery document's "format"s).
SCHEMAS = {
    "Profile": {"emailAddress": "string", "messagesTotal": "int32", "threadsTotal": "int32", "historyId": "uint64"},
    "Message": {"id": "string", "threadId": "string", "labelIds": ["string"], "snippet": "string",
                "historyId": "uint64", "internalDate": "int64", "payload": "MessagePart", "sizeEstimate": "int32",
                "raw": "bytes"},
    "MessagePart": {"partId": "string", "mimeType": "string", "filename": "string", "headers": ["MessagePartHeader"],
                    "body": "MessagePartBody", "parts": ["MessagePart"]},
    "MessagePartHeader": {"name": "string", "value": "string"},
    "MessagePartBody": {"attachmentId": "string", "size": "int32", "data": "bytes"},
    "ListMessagesResponse": {"messages": ["Message"], "nextPageToken": "string", "resultSizeEstimate": "uint32"},
    "ListHistoryResponse": {"history": ["History"], "historyId": "uint64", "nextPageToken": "string"},
    "History": {"id": "uint64", "messages": ["Message"], "messagesAdded": ["HistoryMessageAdded"],
                "messagesDeleted": ["HistoryMessageDeleted"], "labelsAdded": ["HistoryLabelAdded"],
                "labelsRemoved": ["HistoryLabelRemoved"]},
    "HistoryMessageAdded": {"message": "Message"},
    "HistoryMessageDeleted": {"message": "Message"},
    "HistoryLabelAdded": {"message": "Message", "labelIds": ["string"]},
    "HistoryLabelRemoved": {"message": "Message", "labelIds": ["string"]},
    "ListSendAsResponse": {"sendAs": ["SendAs"]},
    "SendAs": {"sendAsEmail": "string", "displayName": "string", "replyToAddress": "string", "signature": "string",
               "isPrimary": "boolean", "isDefault": "boolean", "treatAsAlias": "boolean", "verificationStatus": "string"},
    # Google's error envelope (the "Resolve errors" page and every Google API's JSON errors)
    "ErrorResponse": {"error": "Status"},
    "Status": {"code": "int32", "message": "string", "status": "string", "errors": ["ErrorDetail"]},
    "ErrorDetail": {"message": "string", "domain": "string", "reason": "string"},
    # the OAuth 2.0 token endpoint (RFC 6749, 5.1 and 5.2)
    "TokenResponse": {"access_token": "string", "expires_in": "int32", "token_type": "string", "scope": "string"},
    "TokenError": {"error": "string", "error_description": "string"},
}
# What Google's JSON always carries, where the schema alone would allow leaving it out.
REQUIRED = {
    "Profile": {"emailAddress", "historyId"}, "Message": {"id", "threadId"}, "History": {"id"},
    "ListHistoryResponse": {"historyId"}, "HistoryLabelAdded": {"message", "labelIds"},
    "HistoryLabelRemoved": {"message", "labelIds"}, "Status": {"code", "message", "status"},
    "ErrorResponse": {"error"}, "TokenResponse": {"access_token", "expires_in", "token_type"}, "TokenError": {"error"},
}


def problems(value, kind, where="$"):
    """What in value does not fit the schema or type kind: [] when it fits."""
    if isinstance(kind, list):
        if not isinstance(value, list):
            return [f"{where}: not an array"]
        if not value:
            return [f"{where}: an empty array (Google leaves an empty repeated field out)"]
        return [p for k, item in enumerate(value) for p in problems(item, kind[0], f"{where}[{k}]")]
    if kind in SCHEMAS:
        if not isinstance(value, dict):
            return [f"{where}: not an object ({kind})"]
        found = [f"{where}.{name}: not a field of {kind}" for name in value if name not in SCHEMAS[kind]]
        found += [f"{where}.{name}: missing from {kind}" for name in REQUIRED.get(kind, ()) if name not in value]
        return found + [p for name, item in value.items() if name in SCHEMAS[kind]
                        for p in problems(item, SCHEMAS[kind][name], f"{where}.{name}")]
    fits = {
        "string": lambda v: isinstance(v, str),
        "boolean": lambda v: isinstance(v, bool),
        "uint64": lambda v: isinstance(v, str) and v.isdigit() and int(v) < 2 ** 64,
        "int64": lambda v: isinstance(v, str) and v.lstrip("-").isdigit(),
        "int32": lambda v: isinstance(v, int) and not isinstance(v, bool) and -2 ** 31 <= v < 2 ** 31,
        "uint32": lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2 ** 32,
        "bytes": lambda v: isinstance(v, str) and set(v) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_="),
    }[kind]
    return [] if fits(value) else [f"{where}: not {kind}: {value!r:.60}"]


class Client:
    """Requests as a client sends them, each answer checked against its schema."""

    def __init__(self, server):
        self.server = server

    def call(self, path, schema, status=200, method="GET", body=None, url=None, token=None):
        request = urllib.request.Request(url or self.server.url + path, method=method, data=body,
                                         headers={"Authorization": f"Bearer {token or self.server.token}"})
        try:
            with urllib.request.urlopen(request) as answer:
                got, headers, data = answer.status, answer.headers, answer.read()
        except urllib.error.HTTPError as error:
            got, headers, data = error.code, error.headers, error.read()
        assert got == status, (path, got, data[:300])
        if got == 204:  # batchModify's: No Content
            assert data == b""
            return None, headers
        assert headers["Content-Type"].startswith("application/json")
        value = json.loads(data)
        assert problems(value, schema if got == 200 else ("TokenError" if schema.startswith("Token") else "ErrorResponse")) == [], (path, value)
        if got != 200 and not schema.startswith("Token"):
            assert value["error"]["code"] == got
        return value, headers

    def pages(self, path, schema):
        separator = "&" if "?" in path else "?"
        answers, token = [], None
        while True:
            value, _ = self.call(path + (f"{separator}pageToken={urllib.parse.quote(token)}" if token else ""), schema)
            answers.append(value)
            token = value.get("nextPageToken")
            if not token:
                return answers


@pytest.fixture
def scripted():
    """The sample mailbox with a script of every kind of change the sync tests make."""
    with GmailStandIn.from_mbox(SAMPLE, page_size=5) as server:
        ids = server.ids()
        added = server.add_message(b"From: A <a@example.org>\r\nSubject: new\r\nMessage-ID: <n@x>\r\n\r\nHello.\r\n")
        server.archive(ids[0])
        server.mark_read(ids[1])
        server.mark_unread(ids[2])
        server.add_labels(ids[3], "STARRED", "Label_9")
        server.remove_labels(ids[4], *server.labels(ids[4]))  # no labels at all: no labelIds
        server.delete(ids[5])
        server.move_to_inbox(ids[0])
        server.mark_read(added)
        yield server


def test_every_answer_has_the_shape_gmail_documents(scripted):
    client = Client(scripted)
    profile, _ = client.call("/profile", "Profile")
    assert profile["emailAddress"] == "me@example.com"
    listed = [m for page in client.pages("/messages?maxResults=500&includeSpamTrash=true", "ListMessagesResponse")
              for m in page.get("messages", [])]
    assert {m["id"] for m in listed} == set(scripted.ids())
    for m in listed:
        assert set(m) == {"id", "threadId"}  # a list gives ids only
        for form in ("raw", "minimal", "metadata", "full"):
            message, _ = client.call(f"/messages/{urllib.parse.quote(m['id'], safe='')}?format={form}", "Message")
            assert ("raw" in message) == (form == "raw") and ("payload" in message) == (form in ("metadata", "full"))
            assert message.get("labelIds", []) == scripted.labels(m["id"])
        assert base64.urlsafe_b64decode(client.call(f"/messages/{m['id']}?format=raw", "Message")[0]["raw"])
    for empty_pages in (False, True):
        scripted.empty_history_pages = empty_pages
        history = client.pages(f"/history?startHistoryId={FIRST_HISTORY_ID}&maxResults=500", "ListHistoryResponse")
        records = [r for page in history for r in page.get("history", [])]
        ids = [int(r["id"]) for r in records]
        assert ids == sorted(ids) and len(ids) == len(set(ids)) and len(ids) >= 5
        assert any(b - a > 1 for a, b in zip(ids, ids[1:]))  # ids with gaps, as Gmail's
        assert all(int(page["historyId"]) == scripted.history_id for page in history)
        assert any("history" not in page and "nextPageToken" in page for page in history) == empty_pages


def test_errors_are_google_s_and_gmail_refuses_what_it_refuses(scripted):
    client = Client(scripted)
    deleted = next(r.message_id for r in scripted._history if r.kind == "messagesDeleted")
    client.call(f"/messages/{deleted}", "Message", status=404)
    client.call("/profile", "Profile", status=401, token="wrong")
    # a parameter the method does not take, and a maxResults over 500: 400
    client.call("/profile?maxResults=5", "Profile", status=400)
    client.call("/messages?startHistoryId=1", "ListMessagesResponse", status=400)
    client.call("/history?startHistoryId=1000&includeSpamTrash=true", "ListHistoryResponse", status=400)
    client.call("/messages/x?maxResults=1", "Message", status=400)
    client.call("/messages?maxResults=501", "ListMessagesResponse", status=400)
    client.call("/history?startHistoryId=1000&maxResults=501", "ListHistoryResponse", status=400)
    client.call("/messages?maxResults=500&fields=messages(id)&prettyPrint=false", "ListMessagesResponse")  # the standard ones pass
    client.call("/history", "ListHistoryResponse", status=400)  # startHistoryId is required
    # faults as Google's front end sends them
    scripted.fail_next(429, retry_after=7)
    _, headers = client.call("/profile", "Profile", status=429)
    assert headers["Retry-After"] == "7"
    for status in (500, 503):
        scripted.fail_next(status)
        client.call("/profile", "Profile", status=status)
    for reason, (domain, message) in FORBIDDEN_REASONS.items():
        scripted.fail_next(403, reason=reason)
        error, _ = client.call("/profile", "Profile", status=403)
        assert error["error"]["errors"][0] == {"message": message, "domain": domain, "reason": reason}
    # a history Gmail no longer has
    scripted.expire_history()
    client.call("/history?startHistoryId=1000", "ListHistoryResponse", status=404)


def test_history_ids_that_go_back_answer_no_record_and_the_lower_id(scripted):
    client = Client(scripted)
    before = scripted.history_id
    scripted.rewind_history(by=300)
    page, _ = client.call(f"/history?startHistoryId={before}", "ListHistoryResponse")
    assert page == {"historyId": str(before - 300)}
    assert int(client.call("/profile", "Profile")[0]["historyId"]) < before


def test_pages_shift_when_a_message_goes_between_two_calls(scripted):
    client = Client(scripted)
    first, _ = client.call("/messages?maxResults=5&includeSpamTrash=true", "ListMessagesResponse")
    everything = [m["id"] for page in client.pages("/messages?maxResults=5&includeSpamTrash=true", "ListMessagesResponse")
                  for m in page["messages"]]
    scripted.delete(first["messages"][0]["id"])
    second, _ = client.call(f"/messages?maxResults=5&includeSpamTrash=true&pageToken={urllib.parse.quote(first['nextPageToken'])}",
                            "ListMessagesResponse")
    listed = [m["id"] for m in first["messages"] + second["messages"]]
    assert everything[5] not in listed and everything[5] in scripted.ids()  # live, and on neither page


def test_the_token_endpoint_answers_as_google_s(scripted):
    client = Client(scripted)
    scripted.add_client("client-1", "secret-1", "refresh-1")
    form = lambda **fields: urllib.parse.urlencode(fields).encode()
    good = dict(grant_type="refresh_token", client_id="client-1", client_secret="secret-1", refresh_token="refresh-1")
    answer, _ = client.call("", "TokenResponse", method="POST", body=form(**good), url=scripted.token_url)
    assert answer["access_token"] == scripted.token and answer["token_type"] == "Bearer"
    bad = client.call("", "TokenResponse", status=400, method="POST", body=form(**dict(good, refresh_token="revoked")), url=scripted.token_url)[0]
    assert bad["error"] == "invalid_grant"
    bad = client.call("", "TokenResponse", status=401, method="POST", body=form(**dict(good, client_secret="x")), url=scripted.token_url)[0]
    assert bad["error"] == "invalid_client"
    assert [r["status"] for r in scripted.token_requests] == [200, 400, 401]


def test_the_writes_have_the_shape_gmail_documents_and_refuse_what_gmail_refuses(scripted):
    client = Client(scripted)
    ids = scripted.ids()
    post = lambda path, value, schema, status=200: client.call(path, schema, status, method="POST",
                                                                body=json.dumps(value).encode())
    changed, _ = post(f"/messages/{ids[0]}/modify", {"addLabelIds": ["STARRED"], "removeLabelIds": ["UNREAD"]}, "Message")
    assert "STARRED" in changed["labelIds"] and "UNREAD" not in changed["labelIds"] and scripted.labels(ids[0]) == changed["labelIds"]
    assert post("/messages/batchModify", {"ids": ids[:3], "removeLabelIds": ["INBOX"]}, "Empty", status=204)[0] is None
    assert all("INBOX" not in scripted.labels(i) for i in ids[:3])
    trashed, _ = post(f"/messages/{ids[1]}/trash", {}, "Message")
    assert "TRASH" in trashed["labelIds"]
    assert "TRASH" not in post(f"/messages/{ids[1]}/untrash", {}, "Message")[0].get("labelIds", [])
    send_as, _ = client.call("/settings/sendAs", "ListSendAsResponse")
    assert [a["sendAsEmail"] for a in send_as["sendAs"]] == ["me@example.com"]
    raw = base64.urlsafe_b64encode(b"From: Me <me@example.com>\r\nTo: a@example.org\r\nSubject: hi\r\n"
                                   b"Message-ID: <sent-1@example.com>\r\n\r\nHello.\r\n").decode().rstrip("=")
    sent, _ = post("/messages/send", {"raw": raw, "threadId": scripted._messages[ids[2]].thread_id}, "Message")
    assert sent["labelIds"] == ["SENT"] and sent["threadId"] == scripted._messages[ids[2]].thread_id
    found, _ = client.call("/messages?q=rfc822msgid:sent-1@example.com", "ListMessagesResponse")
    assert [m["id"] for m in found["messages"]] == [sent["id"]]
    # what Gmail refuses
    other = base64.urlsafe_b64encode(b"From: someone@else.org\r\nSubject: x\r\n\r\nx\r\n").decode()
    post("/messages/send", {"raw": other}, "Message", status=400)
    post("/messages/send", {"raw": raw, "threadId": "nosuchthread"}, "Message", status=404)
    post("/messages/batchModify", {"ids": ids[:1] * 1001, "addLabelIds": ["STARRED"]}, "Empty", status=400)
    post("/messages/batchModify", {"ids": ["nosuchid"], "addLabelIds": ["STARRED"]}, "Empty", status=400)
    post(f"/messages/{ids[3]}/modify", {"addLabelIds": ["TRASH"]}, "Message", status=400)
    deleted = next(r.message_id for r in scripted._history if r.kind == "messagesDeleted")
    post(f"/messages/{deleted}/trash", {}, "Message", status=404)
