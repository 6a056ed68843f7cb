"""A stand-in for the part of Gmail's REST API a sync client reads (users.getProfile,
users.messages.list and .get, users.history.list), served on 127.0.0.1 for the end-to-end tests.

The mailbox starts as the messages given, with no history records; a test then scripts changes
(add_message, archive, delete, ...), each one history record with a new historyId as Gmail keeps
them, and reads back what the client asked for in `requests`. fail_next() makes the next requests
fail as Google's front end does (429, 500, 503, ...); it is applied before the token is checked.
A test can also slow every answer (`delay`) and make users.getProfile answer what it likes
(`profile_answer`: any JSON value, or bytes sent as they are)."""
import base64
import dataclasses
import email.parser
import email.policy
import email.utils
import json
import mailbox
import re
import threading
import time
import urllib.parse
from datetime import timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FIRST_MESSAGE_ID = 0x18C0000000000000
FIRST_HISTORY_ID = 1000
UNREADABLE_DATE_MS = 1767225600000  # 2026-01-01T00:00:00Z, for a Date header that does not parse
SNIPPET_LENGTH = 200

# Takeout's X-Gmail-Labels names of Gmail's system labels. "Opened" (read) and "Archived" (not in
# the inbox) name what a message lacks, so they give no label at all.
TAKEOUT_SYSTEM_LABELS = {
    "inbox": "INBOX", "unread": "UNREAD", "sent": "SENT", "starred": "STARRED",
    "important": "IMPORTANT", "spam": "SPAM", "trash": "TRASH", "drafts": "DRAFT", "draft": "DRAFT",
    "chat": "CHAT", "category personal": "CATEGORY_PERSONAL", "category social": "CATEGORY_SOCIAL",
    "category promotions": "CATEGORY_PROMOTIONS", "category updates": "CATEGORY_UPDATES",
    "category forums": "CATEGORY_FORUMS", "opened": None, "archived": None,
}
# historyTypes values, and the key of a history record each one selects.
HISTORY_TYPES = {"messageAdded": "messagesAdded", "messageDeleted": "messagesDeleted",
                 "labelAdded": "labelsAdded", "labelRemoved": "labelsRemoved"}
# HTTP status -> (Google's status name, the reason in its "errors" list)
ERROR_KINDS = {
    400: ("FAILED_PRECONDITION", "failedPrecondition"), 401: ("UNAUTHENTICATED", "authError"),
    403: ("PERMISSION_DENIED", "userRateLimitExceeded"), 404: ("NOT_FOUND", "notFound"),
    429: ("RESOURCE_EXHAUSTED", "rateLimitExceeded"), 500: ("INTERNAL", "backendError"),
    503: ("UNAVAILABLE", "backendError"),
}
ROUTE = re.compile(r"^/gmail/v1/users/([^/]+)/(profile|history|messages)(?:/([^/]+))?$")


class ApiError(Exception):
    def __init__(self, code, message, kind=None, retry_after=None):
        super().__init__(message)
        self.code, self.message, self.retry_after = code, message, retry_after
        self.status, self.reason = kind or ERROR_KINDS.get(code, ("UNKNOWN", "unknown"))

    def body(self):
        return {"error": {"code": self.code, "message": self.message, "status": self.status,
                          "errors": [{"message": self.message, "domain": "global", "reason": self.reason}]}}


def invalid_argument(message):
    return ApiError(400, message, ("INVALID_ARGUMENT", "invalidArgument"))


@dataclasses.dataclass
class Message:
    id: str
    thread_id: str
    raw: bytes
    labels: list
    internal_date: int
    history_id: int
    headers: list  # (name, value) as written, unfolded
    deleted: bool = False


@dataclasses.dataclass
class HistoryRecord:
    id: int
    kind: str  # messagesAdded, messagesDeleted, labelsAdded or labelsRemoved
    message_id: str
    labels: list  # the labels added or removed


def readable(value):
    """A header value as text, its bytes that are not UTF-8 replaced, so that it is valid JSON."""
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def parse_headers(raw):
    parsed = email.parser.BytesHeaderParser(policy=email.policy.compat32).parsebytes(raw)
    return [(name, readable(re.sub(r"\r?\n(?=[ \t])", "", str(value)))) for name, value in parsed.items()]


def header(headers, name):
    return next((value for key, value in headers if key.lower() == name.lower()), None)


def internal_date(headers):
    try:
        when = email.utils.parsedate_to_datetime(header(headers, "Date"))
    except (TypeError, ValueError, IndexError):
        return UNREADABLE_DATE_MS
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return int(when.timestamp() * 1000)


def snippet(raw):
    try:
        body = email.message_from_bytes(raw, policy=email.policy.default).get_body(("plain", "html"))
        text = body.get_content() if body else ""
    except Exception:  # an unknown charset or a broken part: Gmail shows no snippet either
        return ""
    if body.get_content_subtype() == "html":
        text = re.sub(r"<[^>]*>", " ", text)
    return " ".join(text.split())[:SNIPPET_LENGTH]


def page_token(text):
    return base64.urlsafe_b64encode(text.encode()).decode()


def read_page_token(token, prefix):
    """The number a page token of ours holds after prefix ("list:3:" -> ...); 400 for anything else."""
    try:
        text = base64.urlsafe_b64decode(token.encode()).decode()
        if text.startswith(prefix):
            return [int(part) for part in text[len(prefix):].split(":")]
    except ValueError:
        pass
    raise invalid_argument("Invalid pageToken")


class GmailStandIn:
    def __init__(self, messages=(), token="test-token", page_size=7, email="me@example.com"):
        self.token, self.page_size, self.email = token, page_size, email
        self.url = None
        # {method, path, raw_path, query, status} of every request served, in order: path
        # percent-decoded, raw_path as the client sent it
        self.requests = []
        self.delay = 0  # seconds every answer waits, outside the lock
        self.profile_answer = None  # instead of the profile, when not None
        self._lock = threading.RLock()
        self._messages = {}  # id -> Message in insertion order; deleted ones stay, marked
        self._thread_of = {}  # Message-ID header -> threadId
        self._user_labels = {}  # Takeout label name -> Label_N
        self._history = []
        self._history_id = FIRST_HISTORY_ID
        self._oldest_history_id = 0  # startHistoryId below this answers 404
        self._faults = []  # [status, remaining count, path_contains, retry_after]
        self._list_snapshots = []  # the ids of each messages.list, so that its pages stay stable
        self._server = self._serving = None
        for raw, labels in messages:
            self._insert(raw, labels)

    @classmethod
    def from_mbox(cls, path, **kw):
        box = mailbox.mbox(path, create=False)
        try:
            messages = [(box.get_bytes(key), None) for key in box.keys()]
        finally:
            box.close()
        return cls(messages, **kw)

    # serving

    def start(self):
        self._server = StandInServer(("127.0.0.1", 0), StandInHandler)
        self._server.standin = self
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/gmail/v1/users/me"
        self._serving = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._serving.start()
        return self

    def stop(self):
        if self._server:
            self._server.shutdown()
            self._server.server_close()
            self._serving.join()
            self._server = self._serving = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # the state

    def ids(self):
        with self._lock:
            return [m.id for m in self._messages.values() if not m.deleted]

    def labels(self, id):
        with self._lock:
            return list(self._messages[id].labels)

    @property
    def history_id(self):
        with self._lock:
            return self._history_id

    # the script of changes

    def add_message(self, raw_bytes, labels=("INBOX", "UNREAD"), id=None):
        with self._lock:
            message = self._insert(raw_bytes, list(labels), id)
            self._history.append(HistoryRecord(message.history_id, "messagesAdded", message.id, []))
            return message.id

    def add_labels(self, id, *labels):
        with self._lock:
            message = self._live(id)
            added = [label for label in dict.fromkeys(labels) if label not in message.labels]
            if added:
                message.labels += added
                self._record(message, "labelsAdded", added)

    def remove_labels(self, id, *labels):
        with self._lock:
            message = self._live(id)
            removed = [label for label in dict.fromkeys(labels) if label in message.labels]
            if removed:
                message.labels = [label for label in message.labels if label not in removed]
                self._record(message, "labelsRemoved", removed)

    def archive(self, id):
        self.remove_labels(id, "INBOX")

    def mark_read(self, id):
        self.remove_labels(id, "UNREAD")

    def mark_unread(self, id):
        self.add_labels(id, "UNREAD")

    def move_to_inbox(self, id):
        self.add_labels(id, "INBOX")

    def delete(self, id):
        with self._lock:
            message = self._live(id)
            message.deleted = True
            self._record(message, "messagesDeleted", [])

    def expire_history(self):
        with self._lock:
            self._oldest_history_id = self._history_id

    def fail_next(self, status, count=1, path_contains=None, retry_after=None, message=None, kind=None):
        """The next `count` requests whose path has path_contains fail with status; message and
        kind ((status, reason) as in ERROR_KINDS) replace the error's usual ones."""
        with self._lock:
            self._faults.append([status, count, path_contains, retry_after, message, kind])

    # changing the state

    def _next_history_id(self):
        self._history_id += 1
        return self._history_id

    def _insert(self, raw, labels, id=None):
        headers = parse_headers(raw)
        id = id or f"{FIRST_MESSAGE_ID + len(self._messages) + 1:016x}"
        message = Message(id, self._thread_for(headers) or id, raw,
                          self._takeout_labels(headers) if labels is None else list(labels),
                          internal_date(headers), self._next_history_id(), headers)
        self._messages[id] = message
        own_message_id = (header(headers, "Message-ID") or "").strip()
        if own_message_id:
            self._thread_of.setdefault(own_message_id, message.thread_id)
        return message

    def _thread_for(self, headers):
        """The thread of the message this one replies to, when that one is in the mailbox."""
        named = re.findall(r"<[^<>]+>", header(headers, "In-Reply-To") or "")
        named += reversed(re.findall(r"<[^<>]+>", header(headers, "References") or ""))
        return next((self._thread_of[m] for m in named if m in self._thread_of), None)

    def _takeout_labels(self, headers):
        names = header(headers, "X-Gmail-Labels")
        if names is None:
            return ["INBOX", "UNREAD"]
        labels = []
        for name in filter(None, (name.strip() for name in names.split(","))):
            if name.lower() in TAKEOUT_SYSTEM_LABELS:
                label = TAKEOUT_SYSTEM_LABELS[name.lower()]
            else:
                label = self._user_labels.setdefault(name, f"Label_{len(self._user_labels) + 1}")
            if label and label not in labels:
                labels.append(label)
        return labels

    def _live(self, id):
        message = self._messages[id]
        if message.deleted:
            raise ValueError(f"message {id} is deleted")
        return message

    def _record(self, message, kind, labels):
        message.history_id = self._next_history_id()
        self._history.append(HistoryRecord(message.history_id, kind, message.id, labels))

    # answering requests

    def serve(self, method, target, authorization):
        """(status, JSON body, extra headers) for one request, which it records in self.requests."""
        time.sleep(self.delay)
        url = urllib.parse.urlsplit(target)
        path = urllib.parse.unquote(url.path)
        query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        with self._lock:
            extra_headers = {}
            try:
                self._injected_fault(path)
                if authorization != f"Bearer {self.token}":
                    raise ApiError(401, "Request is missing a valid OAuth 2 access token.")
                status, body = 200, self._route(method, url.path, query)
            except ApiError as error:
                status, body = error.code, error.body()
                if error.retry_after is not None:
                    extra_headers["Retry-After"] = str(error.retry_after)
                if error.code == 401:
                    extra_headers["WWW-Authenticate"] = 'Bearer realm="https://accounts.google.com/"'
            self.requests.append({"method": method, "path": path, "raw_path": url.path, "query": query, "status": status})
            return status, body, extra_headers

    def _injected_fault(self, path):
        for fault in self._faults:
            status, remaining, path_contains, retry_after, message, kind = fault
            if remaining > 0 and (path_contains is None or path_contains in path):
                fault[1] -= 1
                raise ApiError(status, message or f"Injected failure ({status}).", kind, retry_after)

    def _route(self, method, raw_path, query):
        # split as sent, then decoded: a percent-encoded "/" is part of a message id
        match = ROUTE.match(raw_path)
        user, resource, id = (urllib.parse.unquote(part or "") for part in match.groups()) if match else [None] * 3
        if method != "GET" or user not in ("me", self.email):
            raise ApiError(404, "Not Found")
        if resource == "messages":
            return self._get_message(id, query) if id else self._list_messages(query)
        if id:
            raise ApiError(404, "Not Found")
        return self._profile() if resource == "profile" else self._list_history(query)

    def _profile(self):
        if self.profile_answer is not None:
            return self.profile_answer
        live = [m for m in self._messages.values() if not m.deleted]
        return {"emailAddress": self.email, "messagesTotal": len(live),
                "threadsTotal": len({m.thread_id for m in live}), "historyId": str(self._history_id)}

    def _max_results(self, query):
        try:
            wanted = int(query.get("maxResults", ["100"])[-1])
        except ValueError:
            raise invalid_argument("Invalid maxResults") from None
        if wanted < 1:
            raise invalid_argument("maxResults must be positive")
        return min(wanted, self.page_size)

    def _list_messages(self, query):
        limit = self._max_results(query)
        if "pageToken" in query:
            snapshot, offset = read_page_token(query["pageToken"][-1], "list:")
            if snapshot >= len(self._list_snapshots):
                raise invalid_argument("Invalid pageToken")
        else:
            wanted = query.get("labelIds", [])
            hide_spam_trash = query.get("includeSpamTrash", ["false"])[-1].lower() != "true"
            hidden = {"SPAM", "TRASH"} - set(wanted) if hide_spam_trash else set()
            chosen = [m for m in self._messages.values()
                      if not m.deleted and set(wanted) <= set(m.labels) and not hidden & set(m.labels)]
            chosen.sort(key=lambda m: (m.internal_date, m.id), reverse=True)
            self._list_snapshots.append([m.id for m in chosen])
            snapshot, offset = len(self._list_snapshots) - 1, 0
        ids = self._list_snapshots[snapshot]
        answer = {}
        # a message deleted since the list began stays listed, as it can in Gmail; get answers 404
        page = [{"id": id, "threadId": self._messages[id].thread_id} for id in ids[offset:offset + limit]]
        if page:
            answer["messages"] = page
        if offset + limit < len(ids):
            answer["nextPageToken"] = page_token(f"list:{snapshot}:{offset + limit}")
        answer["resultSizeEstimate"] = len(ids)
        return answer

    def _get_message(self, id, query):
        message = self._messages.get(id)
        if message is None or message.deleted:
            raise ApiError(404, "Requested entity was not found.")
        form = query.get("format", ["raw"])[-1]
        if form not in ("raw", "minimal", "metadata", "full"):
            raise invalid_argument(f"Invalid value for format: {form}")
        answer = self._with_labels({"id": message.id, "threadId": message.thread_id}, message.labels)
        answer.update({"snippet": snippet(message.raw), "sizeEstimate": len(message.raw),
                       "historyId": str(message.history_id), "internalDate": str(message.internal_date)})
        if form == "raw":
            answer["raw"] = base64.urlsafe_b64encode(message.raw).decode("ascii")
        elif form in ("metadata", "full"):
            # full is given as metadata is, headers without the body's parts: the client never asks it
            wanted = {name.lower() for name in query.get("metadataHeaders", [])}
            headers = [{"name": name, "value": value} for name, value in message.headers
                       if form == "full" or not wanted or name.lower() in wanted]
            content_type = header(message.headers, "Content-Type") or "text/plain"
            answer["payload"] = {"partId": "", "mimeType": content_type.split(";")[0].strip().lower(),
                                 "filename": "", "headers": headers}
        return answer

    @staticmethod
    def _with_labels(message_json, labels):
        # Google's JSON leaves out a repeated field that is empty: a message with no label has no labelIds
        if labels:
            message_json["labelIds"] = list(labels)
        return message_json

    def _list_history(self, query):
        if not query.get("startHistoryId", [""])[-1]:
            raise invalid_argument("startHistoryId is required")
        try:
            start = int(query["startHistoryId"][-1])
        except ValueError:
            raise invalid_argument("Invalid startHistoryId") from None
        if start < self._oldest_history_id:
            raise ApiError(404, "Requested entity was not found.")
        limit = self._max_results(query)
        types = query.get("historyTypes", []) + query.get("historyTypes[]", [])
        if set(types) - set(HISTORY_TYPES):
            raise invalid_argument(f"Invalid historyTypes: {types}")
        kinds = {HISTORY_TYPES[t] for t in types} or set(HISTORY_TYPES.values())
        label_id = query.get("labelId", [None])[-1]
        after = read_page_token(query["pageToken"][-1], "after:")[0] if "pageToken" in query else start
        def touches_label(record):
            return label_id is None or label_id in self._messages[record.message_id].labels + record.labels
        chosen = [record for record in self._history
                  if record.id > after and record.kind in kinds and touches_label(record)]
        answer = {}
        if chosen[:limit]:
            answer["history"] = [self._history_json(record) for record in chosen[:limit]]
        if len(chosen) > limit:
            answer["nextPageToken"] = page_token(f"after:{chosen[limit - 1].id}")
        answer["historyId"] = str(self._history_id)
        return answer

    def _history_json(self, record):
        message = self._messages[record.message_id]
        brief = {"id": message.id, "threadId": message.thread_id}
        # the labels as they are now, not as they were at the change, as Gmail gives them
        with_labels = self._with_labels(dict(brief), message.labels)
        change = {"message": brief if record.kind == "messagesDeleted" else with_labels}
        if record.kind in ("labelsAdded", "labelsRemoved"):
            change["labelIds"] = record.labels
        return {"id": str(record.id), "messages": [brief], record.kind: [change]}


class StandInServer(ThreadingHTTPServer):
    allow_reuse_address = True
    daemon_threads = True


class StandInHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as curl reuses a connection for several URLs

    def _answer(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))  # a body is never used
        status, body, extra_headers = self.server.standin.serve(
            self.command, self.path, self.headers.get("Authorization"))
        data = body if isinstance(body, bytes) else json.dumps(body, indent=2).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=UTF-8")
            self.send_header("Content-Length", str(len(data)))
            for name, value in extra_headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

    def log_message(self, format, *args):
        pass
