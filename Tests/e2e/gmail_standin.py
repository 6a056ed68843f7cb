"""A stand-in for the part of Gmail's REST API a sync client uses (users.getProfile,
users.messages.list and .get, users.history.list; users.messages.modify, .batchModify, .trash,
.untrash and .send, users.settings.sendAs.list), and for Google's OAuth token endpoint
(a refresh token exchanged for an access token), served on 127.0.0.1 for the end-to-end tests.

It behaves as Gmail does where a client can go wrong, not as a client would like: messages.list's
pages are no snapshot (a message deleted between two calls shifts the next pages, so that a live
message can be listed on neither); history ids grow with gaps; they can go back (a restored
mailbox: rewind_history); history.list can answer pages with a nextPageToken and no `history`
(empty_history_pages); a parameter a method does not take, or a maxResults over 500, is a 400; and
faults come as Google sends them, 403s with each documented reason among them.

The mailbox starts as the messages given, with no history records; a test then scripts changes
(add_message, archive, delete, ...), each one history record with a new historyId as Gmail keeps
them, and reads back what the client asked for in `requests`. fail_next() makes the next requests
fail as Google's front end does (429, 500, 503, ...); it is applied before the token is checked.
A test can also slow every answer (`delay`) and make users.getProfile answer what it likes
(`profile_answer`: any JSON value, or bytes sent as they are)."""
import base64
import dataclasses
import random
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
# The parameters every method takes (the discovery document's top-level "parameters"), and each
# method's own: anything else is a 400, as Gmail answers it.
STANDARD_PARAMETERS = {"$.xgafv", "access_token", "alt", "callback", "fields", "key", "oauth_token", "prettyPrint",
                       "quotaUser", "uploadType", "upload_protocol"}
METHOD_PARAMETERS = {
    "profile": set(),
    "history": {"startHistoryId", "maxResults", "pageToken", "labelId", "historyTypes"},
    "messages.list": {"includeSpamTrash", "labelIds", "maxResults", "pageToken", "q"},
    "messages.get": {"format", "metadataHeaders"},
    "messages.modify": set(), "messages.batchModify": set(), "messages.trash": set(), "messages.untrash": set(),
    "messages.send": set(), "settings.sendAs": set(),
}
BATCH_LIMIT = 1000  # users.messages.batchModify's ids
SEND_LIMIT = 35 * 1024 * 1024  # users.messages.send's largest message
MAX_RESULTS = 500  # messages.list's and history.list's limit
# 403s Gmail documents ("Resolve errors"): reason -> (domain, message)
FORBIDDEN_REASONS = {
    "dailyLimitExceeded": ("usageLimits", "Daily Limit Exceeded"),
    "userRateLimitExceeded": ("usageLimits", "User Rate Limit Exceeded"),
    "rateLimitExceeded": ("usageLimits", "Rate Limit Exceeded"),
    "domainPolicy": ("global", "The domain administrators have disabled Gmail apps."),
    "insufficientPermissions": ("global", "Request had insufficient authentication scopes."),
}
# HTTP status -> (Google's status name, the reason in its "errors" list)
ERROR_KINDS = {
    400: ("FAILED_PRECONDITION", "failedPrecondition"), 401: ("UNAUTHENTICATED", "authError"),
    403: ("PERMISSION_DENIED", "userRateLimitExceeded"), 404: ("NOT_FOUND", "notFound"),
    429: ("RESOURCE_EXHAUSTED", "rateLimitExceeded"), 500: ("INTERNAL", "backendError"),
    503: ("UNAVAILABLE", "backendError"),
}
ROUTE = re.compile(r"^/gmail/v1/users/([^/]+)/(profile|history|messages|settings/sendAs)(?:/([^/]+))?(?:/(modify|trash|untrash))?$")


class ApiError(Exception):
    def __init__(self, code, message, kind=None, retry_after=None):
        super().__init__(message)
        self.code, self.message, self.retry_after = code, message, retry_after
        self.status, self.reason = kind or ERROR_KINDS.get(code, ("UNKNOWN", "unknown"))

    def body(self):
        domain = FORBIDDEN_REASONS.get(self.reason, ("global",))[0]
        return {"error": {"code": self.code, "message": self.message, "status": self.status,
                          "errors": [{"message": self.message, "domain": domain, "reason": self.reason}]}}


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


def token_kind(token):
    try:
        return base64.urlsafe_b64decode(token.encode()).decode().split(":", 1)[0]
    except ValueError:
        return None


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
    def __init__(self, messages=(), token="test-token", page_size=7, email="me@example.com", seed=44):
        self.token, self.page_size, self.email = token, page_size, email
        self.url = self.token_url = None
        # the OAuth clients and refresh tokens the token endpoint knows: client_id -> secret,
        # refresh token -> client_id
        self.clients, self.refresh_tokens = {}, {}
        self.token_requests = []  # {"form", "status"} of every request to the token endpoint
        self.empty_history_pages = False  # every other history.list page: a nextPageToken and no history
        self.echo_refused_grant = False  # a careless token endpoint: the refused refresh token in its error
        self._random = random.Random(seed)
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
        self._faults = []  # [status, remaining count, path_contains, retry_after, message, kind]
        self._after = []  # [path_contains, requests to let pass first, action]
        self._server = self._serving = None
        self.send_as = [email]  # the addresses users.settings.sendAs lists: a send's From must be one
        self.sent = []  # the raw bytes of each message users.messages.send took, in order
        self._drops = []  # [path_contains, count]: the change made, the connection closed unanswered
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
        self.token_url = f"http://127.0.0.1:{self._server.server_address[1]}/token"
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

    def rewind_history(self, by=500):
        """The mailbox's history ids go back (a mailbox restored, as reported of real accounts):
        the records kept so far are gone, and the next changes get ids below those a client has
        seen. A history.list from a later id answers no record and the lower current id."""
        with self._lock:
            self._history_id -= by
            self._history = []
            self._oldest_history_id = 0

    def expire_token(self):
        """The access token stops being good (they last an hour): requests with it get 401, and
        the token endpoint gives the next one."""
        with self._lock:
            self.token = f"ya29.standin-{self._random.getrandbits(64):016x}"

    def add_client(self, client_id, secret, refresh_token):
        with self._lock:
            self.clients[client_id] = secret
            self.refresh_tokens[refresh_token] = client_id

    def fail_next(self, status, count=1, path_contains=None, retry_after=None, message=None, kind=None, reason=None):
        """The next `count` requests whose path has path_contains fail with status; message and
        kind ((status, reason) as in ERROR_KINDS) replace the error's usual ones; a 403's reason
        (one of FORBIDDEN_REASONS) comes with Google's message for it."""
        if reason:
            kind = ("RESOURCE_EXHAUSTED" if reason.endswith("LimitExceeded") else "PERMISSION_DENIED", reason)
            message = message or FORBIDDEN_REASONS[reason][1]
        with self._lock:
            self._faults.append([status, count, path_contains, retry_after, message, kind])

    def drop_after_applying(self, path_contains, count=1, skip=0):
        """The `count` requests whose path has path_contains after the first `skip` of them are
        carried out, then their connection is closed without an answer: the client cannot know
        Gmail took them."""
        with self._lock:
            self._drops.append([path_contains, count, skip])

    def trash(self, id):
        self.add_labels(id, "TRASH")

    def find(self, message_id):
        """The live messages whose Message-ID header is this one (without brackets)."""
        with self._lock:
            return [m.id for m in self._messages.values() if not m.deleted
                    and (header(m.headers, "Message-ID") or "").strip().strip("<>") == message_id]

    def after(self, path_contains, action, requests=1):
        """Runs action() (a change of the script) once `requests` requests whose path has
        path_contains have been answered: a change made while a client is part-way through."""
        with self._lock:
            self._after.append([path_contains, requests, action])

    # changing the state

    def _next_history_id(self):
        # Gmail's ids grow, but not one by one
        self._history_id += self._random.randint(1, 40)
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

    def serve_token(self, body):
        """The token endpoint (RFC 6749, section 6): a refresh token of a known client exchanged
        for the access token Gmail takes now."""
        form = urllib.parse.parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
        field = lambda name: form.get(name, [""])[-1]
        with self._lock:
            if field("grant_type") != "refresh_token":
                status, answer = 400, {"error": "unsupported_grant_type", "error_description": "Invalid grant_type: " + field("grant_type")}
            elif self.clients.get(field("client_id")) != field("client_secret") or not field("client_id"):
                status, answer = 401, {"error": "invalid_client", "error_description": "The OAuth client was not found."}
            elif self.refresh_tokens.get(field("refresh_token")) != field("client_id"):
                status, answer = 400, {"error": "invalid_grant", "error_description": "Token has been expired or revoked."
                                       + (f" ({field('refresh_token')})" if self.echo_refused_grant else "")}
            else:
                status, answer = 200, {"access_token": self.token, "expires_in": 3599, "token_type": "Bearer",
                                       "scope": "https://www.googleapis.com/auth/gmail.modify https://www.googleapis.com/auth/gmail.send"}
            self.token_requests.append({"form": form, "status": status})
            return status, answer, {}

    def serve(self, method, target, authorization, body=b""):
        """(status, JSON body, extra headers) for one request, which it records in self.requests;
        the body None when the connection is to be closed unanswered."""
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
                status, body = 200, self._route(method, url.path, query, body)
                if body is None:
                    status, body = 204, b""
                for drop in self._drops:
                    if drop[1] > 0 and drop[0] in path:
                        if drop[2] > 0:
                            drop[2] -= 1
                            continue
                        drop[1] -= 1
                        status, body = 0, None
                        break
            except ApiError as error:
                status, body = error.code, error.body()
                if error.retry_after is not None:
                    extra_headers["Retry-After"] = str(error.retry_after)
                if error.code == 401:
                    extra_headers["WWW-Authenticate"] = 'Bearer realm="https://accounts.google.com/"'
            self.requests.append({"method": method, "path": path, "raw_path": url.path, "query": query, "status": status})
            for waiting in self._after:
                if waiting[1] > 0 and waiting[0] in path:
                    waiting[1] -= 1
                    if waiting[1] == 0:
                        waiting[2]()
            return status, body, extra_headers

    def _injected_fault(self, path):
        for fault in self._faults:
            status, remaining, path_contains, retry_after, message, kind = fault
            if remaining > 0 and (path_contains is None or path_contains in path):
                fault[1] -= 1
                raise ApiError(status, message or f"Injected failure ({status}).", kind, retry_after)

    def _route(self, method, raw_path, query, body=b""):
        # split as sent, then decoded: a percent-encoded "/" is part of a message id
        match = ROUTE.match(raw_path)
        user, resource, id, verb = (urllib.parse.unquote(part or "") for part in match.groups()) if match else [None] * 4
        if user not in ("me", self.email):
            raise ApiError(404, "Not Found")
        if method == "POST" and resource == "messages":
            return self._write(id, verb, query, body)
        if method != "GET" or verb:
            raise ApiError(404, "Not Found")
        if id and resource != "messages":
            raise ApiError(404, "Not Found")
        method_name = resource + (".get" if id else ".list") if resource == "messages" else resource.replace("/", ".")
        unknown = set(query) - METHOD_PARAMETERS[method_name] - STANDARD_PARAMETERS
        if unknown:
            raise invalid_argument(f"Invalid JSON payload received. Unknown name \"{sorted(unknown)[0]}\": Cannot bind query parameter.")
        if resource == "messages":
            return self._get_message(id, query) if id else self._list_messages(query)
        if resource == "settings/sendAs":
            return {"sendAs": [{"sendAsEmail": a, "isPrimary": a == self.email, "verificationStatus": "accepted"} for a in self.send_as]}
        return self._profile() if resource == "profile" else self._list_history(query)

    def _write(self, id, verb, query, body):
        """The POSTs: modify, batchModify, trash, untrash, send. None for 204 No Content."""
        name = {"batchModify": "messages.batchModify", "send": "messages.send"}.get(id) if not verb else "messages." + verb
        if name is None:
            raise ApiError(404, "Not Found")
        unknown = set(query) - METHOD_PARAMETERS[name] - STANDARD_PARAMETERS
        if unknown:
            raise invalid_argument(f"Invalid JSON payload received. Unknown name \"{sorted(unknown)[0]}\": Cannot bind query parameter.")
        try:
            request = json.loads(body) if body else {}
        except ValueError:
            raise invalid_argument("Invalid JSON payload received.") from None
        if not isinstance(request, dict):
            raise invalid_argument("Invalid JSON payload received.")
        add, remove = request.get("addLabelIds", []), request.get("removeLabelIds", [])
        if name == "messages.batchModify":
            ids = request.get("ids", [])
            if not ids or len(ids) > BATCH_LIMIT:
                raise invalid_argument(f"ids: between 1 and {BATCH_LIMIT}")
            if any(i not in self._messages or self._messages[i].deleted for i in ids):
                raise invalid_argument("Invalid id value")
            for i in ids:
                self._change(i, add, remove)
            return None
        if name == "messages.send":
            return self._send(request)
        message = self._messages.get(id)
        if message is None or message.deleted:
            raise ApiError(404, "Requested entity was not found.")
        if name == "messages.modify":
            self._change(id, add, remove)
        elif name == "messages.trash":
            self.add_labels(id, "TRASH")
        else:
            self.remove_labels(id, "TRASH")
        return self._with_labels({"id": message.id, "threadId": message.thread_id}, message.labels)

    def _change(self, id, add, remove):
        for label in add + remove:
            if label in ("TRASH", "DRAFT") or not isinstance(label, str):
                raise invalid_argument(f"Invalid label: {label}")
        if remove:
            self.remove_labels(id, *remove)
        if add:
            self.add_labels(id, *add)

    def _send(self, request):
        try:
            raw = base64.urlsafe_b64decode(request.get("raw", "") + "=" * (-len(request.get("raw", "")) % 4))
        except ValueError:
            raise invalid_argument("Invalid raw") from None
        if len(raw) > SEND_LIMIT:
            raise invalid_argument("Message too large")
        headers = parse_headers(raw)
        sender = email.utils.parseaddr(header(headers, "From") or "")[1].lower()
        if sender not in [a.lower() for a in self.send_as]:
            raise invalid_argument(f"Invalid From header: {sender} is not one of the account's send-as addresses")
        thread = request.get("threadId")
        if thread is not None and thread not in {m.thread_id for m in self._messages.values() if not m.deleted}:
            raise ApiError(404, "Requested entity was not found.")
        message = self._insert(raw, ["SENT"])
        if thread:
            message.thread_id = thread
        self._history.append(HistoryRecord(message.history_id, "messagesAdded", message.id, []))
        self.sent.append(raw)
        return self._with_labels({"id": message.id, "threadId": message.thread_id}, message.labels)

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
        if wanted > MAX_RESULTS:
            raise invalid_argument(f"Invalid maxResults: {wanted}, the most is {MAX_RESULTS}")
        return min(wanted, self.page_size)

    def _list_messages(self, query):
        limit = self._max_results(query)
        offset = read_page_token(query["pageToken"][-1], "list:")[0] if "pageToken" in query else 0
        wanted = query.get("labelIds", [])
        hide_spam_trash = query.get("includeSpamTrash", ["false"])[-1].lower() != "true"
        hidden = {"SPAM", "TRASH"} - set(wanted) if hide_spam_trash else set()
        chosen = [m for m in self._messages.values()
                  if not m.deleted and set(wanted) <= set(m.labels) and not hidden & set(m.labels)]
        q = query.get("q", [""])[-1]
        if q:
            # of Gmail's search words, the one a client asks: a message by its Message-ID
            if not q.startswith("rfc822msgid:"):
                raise invalid_argument(f"the stand-in reads no search but rfc822msgid: ({q})")
            wanted_id = q[len("rfc822msgid:"):].strip().strip("<>")
            chosen = [m for m in chosen if (header(m.headers, "Message-ID") or "").strip().strip("<>") == wanted_id]
        chosen.sort(key=lambda m: (m.internal_date, m.id), reverse=True)
        # the list as it is at each call, no snapshot: a message deleted after one page was served
        # shifts the next pages by one, and the first message of the next page is listed on neither
        ids = [m.id for m in chosen]
        answer = {}
        page = [{"id": id, "threadId": self._messages[id].thread_id} for id in ids[offset:offset + limit]]
        if page:
            answer["messages"] = page
        if offset + limit < len(ids):
            answer["nextPageToken"] = page_token(f"list:{offset + limit}")
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
        token = query.get("pageToken", [None])[-1]
        if self.empty_history_pages and (token is None or token_kind(token) == "gap"):
            # a page with nothing on it but the way on, as Gmail can answer
            after = read_page_token(token, "gap:")[0] if token else start
            return {"historyId": str(self._history_id), "nextPageToken": page_token(f"after:{after}")}
        after = read_page_token(token, "after:")[0] if token else start
        def touches_label(record):
            return label_id is None or label_id in self._messages[record.message_id].labels + record.labels
        chosen = [record for record in self._history
                  if record.id > after and record.kind in kinds and touches_label(record)]
        answer = {}
        if chosen[:limit]:
            answer["history"] = [self._history_json(record) for record in chosen[:limit]]
        if len(chosen) > limit:
            answer["nextPageToken"] = page_token(f"{'gap' if self.empty_history_pages else 'after'}:{chosen[limit - 1].id}")
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
    # each answer's header and body go out at once: with Nagle's algorithm the body waited for
    # the client's delayed ACK of the header (40 ms an answer on a kept-alive connection), which
    # Google's front end never makes a client wait
    disable_nagle_algorithm = True

    def _answer(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.command == "POST" and urllib.parse.urlsplit(self.path).path == "/token":
            status, body, extra_headers = self.server.standin.serve_token(body)
        else:
            status, body, extra_headers = self.server.standin.serve(
                self.command, self.path, self.headers.get("Authorization"), body)
        if body is None:  # carried out, and the connection dropped before the answer
            self.close_connection = True
            self.connection.close()
            return
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
