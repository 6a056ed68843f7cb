"""Compares html-sanitize's output with the outputs DOMPurify and Roundcube's washtml expect
for the same input: which elements and attributes we keep that they do not ("more"), and which
they keep that we do not ("less"), by name, after both are parsed by the same HTML parser."""
import collections
from html.parser import HTMLParser

# Elements html-sanitize drops with everything inside them: what they hold is not compared.
CONTAINERS = {"svg", "math", "template", "select", "textarea", "audio", "video", "noscript", "iframe", "object"}
OURS = {"target", "rel", "data-remote-src", "data-remote-background"}  # what we add on purpose
THEIRS = {"x-washed"}  # Roundcube's marker of what it washed


class Names(HTMLParser):
    def __init__(self, ignore):
        super().__init__(convert_charrefs=True)
        self.ignore = ignore
        self.items = collections.Counter()
        self.inside = 0  # depth of dropped containers

    def handle_endtag(self, tag):
        if tag in CONTAINERS and self.inside:
            self.inside -= 1

    def handle_starttag(self, tag, attrs):
        if tag == "div" and ("class", "mailpipe-body") in attrs or tag == "mailpipe-span":
            return  # the wrapper, and what stands for an element not in the allowlist
        if self.inside:
            self.inside += tag in CONTAINERS
            return
        if tag in CONTAINERS:
            self.inside = 1
        self.items["<" + tag + ">"] += 1
        for name, _ in attrs:
            if name not in self.ignore:
                self.items[tag + "@" + name] += 1


def names(html, ignore):
    p = Names(ignore)
    p.feed(html)
    p.close()
    return p.items


def difference(ours, expected):
    """(more, less): element ("<b>") and attribute ("a@href") names only one side keeps, for
    the expected output (of those given) closest to ours."""
    mine = names(ours, OURS)
    best = None
    for e in expected:
        theirs = names(e, THEIRS)
        more, less = set(mine - theirs), set(theirs - mine)
        if best is None or (len(more), len(less)) < (len(best[0]), len(best[1])):
            best = (more, less)
    return best
