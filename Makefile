# mailpipe: `make` builds, `make test` tests, `make pipeline` runs the pipeline on the sample.
PREFIX ?= /usr/local
MANDIR ?= $(PREFIX)/share/man
TOOLS := mime-parse event-extract html-sanitize text-extract newsletter-detect carrier-detect participant-hash conversation-group event-group parcel-group chat-render mailstore mail-compose gmail-sync mail-thumbnail
BIN := .build/release
MBOX ?= samples/sample.mbox
OUT ?= out
ME ?= mei@example.tw
ZONE ?= Asia/Taipei
export SWIFT_BACKTRACE = enable=no

.PHONY: all build deps test unit-test e2e-test lint-man pipeline screenshots install bench fuzz clean reply-cues

all: build

deps:
	@scripts/install-deps

# Swift's own libraries linked in: each program starts in about 12 ms instead of 16 (the
# dynamic linker's symbol lookups), and a delivery starts seven of them
build: deps
	swift build -c release --static-swift-stdlib

# Unit tests (Swift Testing) and the end-to-end tests of the installed-style binaries (pytest).
test: build
	@scripts/install-deps --test
	$(MAKE) --no-print-directory lint-man
	swift test --parallel
	.venv/bin/python -m pytest -q -n 2 Tests/e2e

# the literal cues of the built-in reply patterns, written again after reply-patterns.json (or
# LiteralCues) changes: a unit test fails until then
reply-cues: deps
	swift build --build-tests
	MAILPIPE_WRITE_CUES=$(CURDIR)/Sources/BodyText/ReplyPatternCues.swift swift test --skip-build --filter theBuiltInCuesTableIsUpToDate || true
	swift build --build-tests
	swift test --skip-build --filter theBuiltInCuesTableIsUpToDate

lint-man:
	@for page in man/man*/*.[157]; do mandoc -Tlint -W warning "$$page" || exit 1; done

pipeline: build
	pipelines/mbox-to-conversations --me "$(ME)" --zone "$(ZONE)" --out "$(OUT)" --html "$(OUT)/site" "$(MBOX)"
	@echo "The calendar ($(OUT)/events.jsonl, $(OUT)/calendar.ics):"
	@jq -r '[.start_local // .start, .status // "-", .summary, (.recurrence.rule // "")] | @tsv' "$(OUT)/events.jsonl"
	@echo "The parcels still coming or waiting when the mailbox's last mail came ($(OUT)/parcels.jsonl):"
	@$(BIN)/parcel-group --open --now "$$(jq -rs 'map(.date // empty) | max // "1970-01-01T00:00:00Z"' "$(OUT)/messages.jsonl")" "$(OUT)/messages.jsonl" \
	  | jq -r '[.status // "-", .carrier, .tracking_number // "-", (.pickup.store // ""), (.pickup.code // ""), (.pickup.deadline // .expected_delivery // "")] | @tsv'
	@echo "The conversations, to open in a browser: file://$$(cd "$(OUT)/site" && pwd)/index.html"

# The sample's site in Chromium at a phone's and a desktop's width, into $(OUT)/screenshots
# (docs/screenshots/ holds a copy of them for the README)
screenshots: pipeline
	@scripts/install-deps --test
	.venv/bin/python scripts/screenshots "$(OUT)/conversations.jsonl" "$(OUT)/site" "$(OUT)/screenshots"

install: build
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(MANDIR)/man5" "$(DESTDIR)$(MANDIR)/man7"
	for t in $(TOOLS); do install -m 755 "$(BIN)/$$t" "$(DESTDIR)$(PREFIX)/bin/$$t"; done
	install -m 755 pipelines/mbox-to-conversations pipelines/mailpipe-log pipelines/mailpipe-site "$(DESTDIR)$(PREFIX)/bin/"
	install -d "$(DESTDIR)$(PREFIX)/share/mailpipe"
	install -m 644 pipelines/procmailrc pipelines/fetchmailrc pipelines/gmail-sync.timer "$(DESTDIR)$(PREFIX)/share/mailpipe/"
	for f in gmail-sync.service gmail-sync.cron; do \
	  sed 's|@BINDIR@|$(PREFIX)/bin|g' "pipelines/$$f" > "$(DESTDIR)$(PREFIX)/share/mailpipe/$$f" && chmod 644 "$(DESTDIR)$(PREFIX)/share/mailpipe/$$f" || exit 1; \
	done
	install -m 644 man/man1/*.1 "$(DESTDIR)$(MANDIR)/man1/"
	install -m 644 man/man5/*.5 "$(DESTDIR)$(MANDIR)/man5/"
	install -m 644 man/man7/*.7 "$(DESTDIR)$(MANDIR)/man7/"
	install -d "$(DESTDIR)$(PREFIX)/share/bash-completion/completions" "$(DESTDIR)$(PREFIX)/share/zsh/site-functions" "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d"
	for t in $(TOOLS); do \
	  "$(BIN)/$$t" --generate-completion-script bash > "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$t"; \
	  "$(BIN)/$$t" --generate-completion-script zsh > "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_$$t"; \
	  "$(BIN)/$$t" --generate-completion-script fish > "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/$$t.fish"; \
	done

# The benchmarks' inputs are the external corpora (../shared): the generated mailboxes and real mail.
bench:
	@scripts/need-shared "make bench" gen/gen_mbox.py corpus vectors/html2text vectors/reply vectors/ical
	@$(MAKE) --no-print-directory build
	@scripts/install-deps --bench
	bench/mime-parse.sh
	bench/conversations.sh
	bench/stages.sh
	bench/parallel.sh
	.venv/bin/python bench/classifier-accuracy.py 1g
	.venv/bin/python bench/html-sanitize.py
	.venv/bin/python bench/text-extract.py
	.venv/bin/python bench/events.py 1g
	.venv/bin/python bench/chat-render.py 1g
	.venv/bin/python bench/site-pictures.py
	.venv/bin/python bench/mailstore.py 1g
	.venv/bin/python bench/live.py 200m 1g
	.venv/bin/python bench/mail-compose.py 1g
	.venv/bin/python bench/limits.py
	.venv/bin/python bench/thumbnails.py 1000

# libFuzzer (Fuzz/, built with -sanitize=fuzzer): html-sanitize's sanitizer, whose every seed
# must come out unchanged when sanitized again, then each of FUZZ_TARGETS: a mailpipe filter run
# as its program runs it, with the properties of Fuzz/Sources/mailpipe-fuzz (no crash, no input
# over 1 s, every line out a JSON object, N records in and N lines out, a second run changes
# nothing), then mail-compose's request reader and writer (Fuzz/Sources/mail-compose-fuzz: no
# crash; every message written reads back with its subject, recipients and text), and
# mime-parse's parameter and filename reader (Fuzz/Sources/attachment-name-fuzz: every name
# is saved inside the folder; a name written as RFC 2231 pieces reads back). FUZZ_SECONDS
# of mutations each; what fails is saved in .build/fuzz-artifacts/. The seeds are the external
# corpora's real mail (../shared), without which the fuzzers start blind, and the sample's.
FUZZ_SECONDS ?= 120
FUZZ_TARGETS ?= mime-parse mime-parse-eml mime-parse-mbox mime-parse-gmail-api json-lines html-sanitize \
  text-extract newsletter-detect carrier-detect participant-hash event-extract conversation-group event-group parcel-group
COMPOSE_FUZZ_TARGETS ?= mail-compose-request mail-compose
FUZZ_FLAGS = -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=1
fuzz:
	@scripts/need-shared "make fuzz" corpus vectors/html2text vectors/xss vectors/ical/thunderbird-invitations
	@$(MAKE) --no-print-directory build
	swift build --package-path Fuzz -c release -Xswiftc -sanitize=fuzzer -Xlinker --allow-multiple-definition
	rm -rf .build/fuzz-seeds && python3 Fuzz/seeds.py .build/fuzz-seeds
	FUZZ_IDEMPOTENCE=1 Fuzz/.build/release/html-sanitize-fuzz -runs=0 .build/fuzz-seeds
	mkdir -p .build/fuzz-corpus .build/fuzz-artifacts
	Fuzz/.build/release/html-sanitize-fuzz $(FUZZ_FLAGS) -artifact_prefix=.build/fuzz-artifacts/ .build/fuzz-corpus .build/fuzz-seeds
	for t in $(FUZZ_TARGETS); do \
	  rm -rf .build/fuzz-seeds-$$t && python3 Fuzz/seeds.py .build/fuzz-seeds-$$t $$t && mkdir -p .build/fuzz-corpus-$$t && \
	  MAILPIPE_FUZZ_TARGET=$$t Fuzz/.build/release/mailpipe-fuzz $(FUZZ_FLAGS) -artifact_prefix=.build/fuzz-artifacts/$$t- \
	    .build/fuzz-corpus-$$t .build/fuzz-seeds-$$t || exit 1; \
	done
	rm -rf .build/fuzz-seeds-attachment-name && python3 Fuzz/seeds.py .build/fuzz-seeds-attachment-name attachment-name && \
	  mkdir -p .build/fuzz-corpus-attachment-name && \
	  Fuzz/.build/release/attachment-name-fuzz $(FUZZ_FLAGS) -artifact_prefix=.build/fuzz-artifacts/attachment-name- \
	    .build/fuzz-corpus-attachment-name .build/fuzz-seeds-attachment-name
	for t in $(COMPOSE_FUZZ_TARGETS); do \
	  rm -rf .build/fuzz-seeds-$$t && python3 Fuzz/seeds.py .build/fuzz-seeds-$$t $$t && mkdir -p .build/fuzz-corpus-$$t && \
	  MAILPIPE_FUZZ_TARGET=$$t Fuzz/.build/release/mail-compose-fuzz $(FUZZ_FLAGS) -artifact_prefix=.build/fuzz-artifacts/$$t- \
	    .build/fuzz-corpus-$$t .build/fuzz-seeds-$$t || exit 1; \
	done
	rm -rf .build/fuzz-seeds-pictures && python3 Fuzz/seeds.py .build/fuzz-seeds-pictures pictures && mkdir -p .build/fuzz-corpus-pictures
	Fuzz/.build/release/pictures-fuzz $(FUZZ_FLAGS) -artifact_prefix=.build/fuzz-artifacts/pictures- .build/fuzz-corpus-pictures .build/fuzz-seeds-pictures

clean:
	rm -rf .build Fuzz/.build "$(OUT)"
