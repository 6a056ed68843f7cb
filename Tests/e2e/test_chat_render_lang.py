"""chat-render --lang: the sample site in each built-in language. The site's own words (not the
mail's) are the language's wherever it has them, <html lang> says which, dates and times are
written as ICU writes them in that language, and counts take the language's plural forms. The
default (no --lang, a C locale) is the English site byte for byte; the locale chooses in POSIX's
order; mailpipe-site passes --lang on to the store's render."""
import datetime
import html.parser
import json
import pathlib
import re
import subprocess
import zoneinfo

import pytest

from conftest import ENV, ROOT, SAMPLE, run

NOW = "2026-03-11T00:00:00Z"
ZONE = "Asia/Taipei"
WORDS = ROOT / "Sources" / "ChatSite" / "words"
# the tag asked for, the language chosen (<html lang>), its words file
LANGUAGES = [("de", "de"), ("ja", "ja"), ("zh-TW", "zh-Hant"), ("zh-CN", "zh-Hans")]
NO_LOCALE = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"}


def words(language):
    return json.loads((WORDS / f"{language}.json").read_text())[language]


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    d = tmp_path_factory.mktemp("lang")
    r = subprocess.run([str(ROOT / "pipelines" / "mbox-to-conversations"), "--me", "mei@example.tw", "--zone", ZONE,
                        "--out", str(d), str(SAMPLE)], capture_output=True, env=ENV)
    assert r.returncode == 0, r.stderr
    return d


def render(d, out, *args, env=None):
    r = run("chat-render", "--conversations", d / "conversations.jsonl", "--out", out, "--zone", ZONE, "--now", NOW,
            *args, d / "messages.jsonl", env=dict(NO_LOCALE, **(env or {})))
    assert r.returncode == 0 and r.stderr == b"", r.stderr
    return out


@pytest.fixture(scope="module")
def sites(pipeline, tmp_path_factory):
    base = tmp_path_factory.mktemp("sites")
    made = {"en": render(pipeline, base / "en", "--lang", "en")}
    for tag, language in LANGUAGES:
        made[language] = render(pipeline, base / language, "--lang", tag)
    return made


def pages(site):
    return sorted(p for p in site.rglob("*.html") if not p.name.endswith(".frame.html"))


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Chrome(html.parser.HTMLParser):
    """The text a page shows of its own: everything but the mail's (what the templates mark
    dir="auto": names, subjects, texts, titles; a card's title and the conversation it links),
    with the aria-labels and titles of its elements."""

    def __init__(self):
        super().__init__()
        self.stack = []  # whether each open element is the mail's
        self.parts = []

    def mail(self):
        return any(self.stack)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        is_mail = a.get("dir") == "auto" or "card-title" in classes or "card-from" in classes or tag in ("title", "iframe", "code")
        if not self.mail() and not is_mail:
            self.parts += [a[k] for k in ("aria-label", "title") if a.get(k)]
        if tag not in VOID:
            self.stack.append(is_mail)

    def handle_endtag(self, tag):
        if tag not in VOID and self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if not self.mail():
            self.parts.append(data)


def chrome_text(page):
    c = Chrome()
    c.feed(page.read_text())
    return "\n".join(c.parts)


def english_phrases(language):
    """Each English text the language has its own for, without its {places}: the pieces of
    it that are words."""
    en, own = words("en"), words(language)
    phrases = set()
    for key, text in en.items():
        if key not in own or own[key] == text or not isinstance(text, str):
            continue
        for piece in re.split(r"\{[a-z]+\}", text):
            piece = piece.strip(" ().,:·…")
            if re.search(r"[A-Za-z]{2}", piece):
                phrases.add(piece)
    return phrases


@pytest.mark.parametrize("tag,language", LANGUAGES)
def test_no_english_word_is_left_where_the_language_has_its_own(sites, tag, language):
    phrases = english_phrases(language)
    assert len(phrases) > 60
    site = sites[language]
    left = {}
    shown = 0
    for page in pages(site):
        text = chrome_text(page)
        shown += len(text)
        for phrase in phrases:
            if re.search(r"(?<![A-Za-z])" + re.escape(phrase) + r"(?![A-Za-z])", text):
                left.setdefault(phrase, []).append(str(page.relative_to(site)))
    assert shown > 1000
    assert not left, {p: f[:3] for p, f in left.items()}


def test_the_english_site_has_the_english_words_the_check_looks_for(sites):
    """The check above can fail: the English site's own text shows most of those phrases."""
    text = "\n".join(chrome_text(p) for p in pages(sites["en"]))
    found = [p for p in english_phrases("de") if re.search(r"(?<![A-Za-z])" + re.escape(p) + r"(?![A-Za-z])", text)]
    assert len(found) >= 30, sorted(found)
    for phrase in ["Discussion lists", "Skip to the content", "On the way", "Show quoted text", "Subscribe to this calendar"]:
        assert phrase in found


@pytest.mark.parametrize("tag,language", [("en", "en")] + LANGUAGES)
def test_every_page_says_its_language(sites, tag, language):
    for page in pages(sites[language]):
        assert f'<html lang="{language}">' in page.read_text(), page


WEEKDAYS = {
    "en": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
    "de": ["Mo.", "Di.", "Mi.", "Do.", "Fr.", "Sa.", "So."],
    "ja": ["月", "火", "水", "木", "金", "土", "日"],
    "zh-Hant": ["週一", "週二", "週三", "週四", "週五", "週六", "週日"],
    "zh-Hans": ["周一", "周二", "周三", "周四", "周五", "周六", "周日"],
}
MONTHS = {
    "en": "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(),
    "de": "Jan. Feb. März Apr. Mai Juni Juli Aug. Sept. Okt. Nov. Dez.".split(),
}


def day_text(language, d):
    w = WEEKDAYS[language][d.weekday()]
    if language == "en":
        return f"{w} {d.day} {MONTHS['en'][d.month - 1]} {d.year}"
    if language == "de":
        return f"{w}, {d.day}. {MONTHS['de'][d.month - 1]} {d.year}"
    if language == "ja":
        return f"{d.year}年{d.month}月{d.day}日({w})"
    return f"{d.year}年{d.month}月{d.day}日" + (" " if language == "zh-Hant" else "") + w


def clock_text(language, t):
    if language == "zh-Hant":
        return ("上午" if t.hour < 12 else "下午") + f"{(t.hour + 11) % 12 + 1}:{t.minute:02d}"
    if language == "ja":
        return f"{t.hour}:{t.minute:02d}"
    return f"{t.hour:02d}:{t.minute:02d}"


@pytest.mark.parametrize("tag,language", [("en", "en")] + LANGUAGES)
def test_days_and_times_are_written_in_the_language(sites, tag, language):
    zone = zoneinfo.ZoneInfo(ZONE)
    days = times = 0
    for page in pages(sites[language] / "c"):
        text = page.read_text()
        for date, shown in re.findall(r'<li class="day"><time datetime="(\d{4}-\d\d-\d\d)">([^<]+)</time>', text):
            assert shown == day_text(language, datetime.date.fromisoformat(date)), (page, date)
            days += 1
        for instant, shown in re.findall(r'<p class="meta"><time datetime="([^"]+)">([^<]+)</time>', text):
            local = datetime.datetime.fromisoformat(instant.replace("Z", "+00:00")).astimezone(zone)
            assert shown == clock_text(language, local), (page, instant)
            times += 1
    assert days >= 10 and times >= 15


@pytest.mark.parametrize("language,one,other", [("en", "message", "messages"), ("de", "Nachricht", "Nachrichten"),
                                                ("ja", "件のメッセージ", "件のメッセージ"), ("zh-Hant", "則訊息", "則訊息")])
def test_message_counts_take_the_plural_form_of_the_language(sites, language, one, other):
    counts = re.findall(r'<span class="count">(\d+)<span class="visually-hidden"> ([^<]+)</span>',
                        (sites[language] / "index.html").read_text())
    assert counts
    for n, word in counts:
        assert word == (one if n == "1" else other), (n, word)


def test_the_default_is_the_english_site_byte_for_byte(pipeline, sites, tmp_path):
    default = render(pipeline, tmp_path / "default")
    english = sites["en"]
    names = [p.relative_to(english) for p in english.rglob("*") if p.is_file()]
    assert names == [p.relative_to(default) for p in default.rglob("*") if p.is_file()]
    for name in names:
        assert (english / name).read_bytes() == (default / name).read_bytes(), name


@pytest.mark.parametrize("env,language", [
    ({"LANG": "de_DE.UTF-8"}, "de"),
    ({"LANG": "de_DE.UTF-8", "LC_MESSAGES": "ja_JP.UTF-8"}, "ja"),
    ({"LANG": "de_DE.UTF-8", "LC_MESSAGES": "ja_JP.UTF-8", "LC_ALL": "zh_TW.UTF-8"}, "zh-Hant"),
    ({"LANG": "zh_SG.UTF-8"}, "zh-Hans"),
    ({"LANG": "fr_FR.UTF-8"}, "en"),
    ({"LANG": "POSIX"}, "en"),
])
def test_without_lang_the_locale_chooses_in_posix_order(pipeline, tmp_path, env, language):
    site = render(pipeline, tmp_path / "site", env=env)
    assert f'<html lang="{language}">' in (site / "index.html").read_text()


def test_lang_beats_the_locale_and_an_unknown_language_is_english(pipeline, tmp_path):
    site = render(pipeline, tmp_path / "a", "--lang", "ja", env={"LC_ALL": "de_DE.UTF-8"})
    assert '<html lang="ja">' in (site / "index.html").read_text()
    site = render(pipeline, tmp_path / "b", "--lang", "x-klingon", env={"LC_ALL": "de_DE.UTF-8"})
    assert '<html lang="en">' in (site / "index.html").read_text()
    site = render(pipeline, tmp_path / "c", "--lang", "zh")
    assert '<html lang="zh-Hans">' in (site / "index.html").read_text()


def test_a_users_words_add_a_language_and_a_wrong_file_is_refused(pipeline, tmp_path):
    config = tmp_path / "config" / "mailpipe"
    config.mkdir(parents=True)
    (config / "site-words.json").write_text(json.dumps({"fr": {"section_chats": "Discussions", "today": "Aujourd’hui",
                                                                "date_day": {"skeleton": "yMMMdEEE"}}}))
    site = render(pipeline, tmp_path / "fr", "--lang", "fr-CA", env={"XDG_CONFIG_HOME": str(tmp_path / "config")})
    index = (site / "index.html").read_text()
    assert '<html lang="fr">' in index and ">Discussions</a>" in index and ">Newsletters</a>" in index  # English where fr has none
    days = re.findall(r'<li class="day"><time datetime="[^"]+">([^<]+)</time>', "".join(p.read_text() for p in pages(site / "c")))
    assert days and all(re.fullmatch(r"[a-z]+\. \d{1,2} [a-zé.û]+ \d{4}", d) for d in days), days[:3]

    (config / "site-words.json").write_text(json.dumps({"fr": {"sectoin_chats": "Discussions"}}))
    r = run("chat-render", "--conversations", pipeline / "conversations.jsonl", "--out", tmp_path / "bad", "--lang", "fr",
            pipeline / "messages.jsonl", env={"XDG_CONFIG_HOME": str(tmp_path / "config")})
    assert r.returncode == 65 and b"site-words.json" in r.stderr and b"sectoin_chats" in r.stderr


def test_mailpipe_site_renders_the_store_in_the_language_given(pipeline, tmp_path):
    store, site = tmp_path / "mail.db", tmp_path / "site"
    env = dict(ENV, **NO_LOCALE)
    r = subprocess.run([str(ROOT / "pipelines" / "mailpipe-site"), "--store", str(store), "--zone", ZONE, "--lang", "zh-TW",
                        str(pipeline / "messages.jsonl"), str(site)], capture_output=True, env=env)
    assert r.returncode == 0, r.stderr
    index = (site / "index.html").read_text()
    assert '<html lang="zh-Hant">' in index and ">聊天</a>" in index
    # another language renders every page again
    r = subprocess.run([str(ROOT / "pipelines" / "mailpipe-site"), "--store", str(store), "--zone", ZONE, "--lang", "de",
                        str(pipeline / "messages.jsonl"), str(site)], capture_output=True, env=env)
    assert r.returncode == 0, r.stderr
    for page in pages(site):
        assert '<html lang="de">' in page.read_text(), page
