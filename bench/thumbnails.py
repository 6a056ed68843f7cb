"""mail-thumbnail against vipsthumbnail and ImageMagick (issue 45): COUNT pictures (1,000 by default) of mixed
sizes and formats, as mail's attachments come (JPEG photos from 0.3 to 12 megapixels, PNG screenshots, some
with transparency, GIFs, some animated, WebP), each made into a display copy (1,600 px) and a thumbnail (320 px),
in one run:
  - mail-thumbnail, one run over all the files (it writes both, metadata stripped);
  - vipsthumbnail, a run per size over all the files, metadata stripped ([strip]);
  - ImageMagick (when installed: /usr/bin/mogrify, `convert -thumbnail`'s form for many files), a run per size,
    `-thumbnail` (which strips metadata), the first frame of each file ([0]).
Printed for each: wall and CPU seconds, the peak resident memory of its largest process (GNU time), the pictures
made, and the ratio of each peer's time and memory to mail-thumbnail's.
    .venv/bin/python bench/thumbnails.py [COUNT]
The pictures are made by Pillow, the same each run (seeded), and kept in .bench-data/thumbnails-COUNT/.
MAILPIPE_BIN takes the binary from elsewhere than .build/release."""
import json
import os
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
BIN = pathlib.Path(os.environ.get("MAILPIPE_BIN", ROOT / ".build" / "release"))
DISPLAY, THUMBNAIL = 1600, 320
PHOTO_SIZES = [(640, 480), (1024, 768), (1600, 1200), (2048, 1536), (3264, 2448), (4000, 3000)]
SCREEN_SIZES = [(390, 844), (1280, 800), (1920, 1080), (2560, 1440)]


def pictures(count):
    """The COUNT pictures (made once): 60% JPEG photos, 20% PNG, 10% GIF, 10% WebP."""
    from PIL import Image, ImageDraw
    folder = ROOT / ".bench-data" / f"thumbnails-{count}"
    done = folder / "done"
    if done.exists():
        return sorted(p for p in folder.iterdir() if p.name != "done")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    print(f"making {count} pictures in {folder} (once)...", file=sys.stderr)
    rng = random.Random(45)
    grain = Image.effect_noise((256, 256), 40).convert("RGB")

    def photo(size):
        # a smooth scene from a few random pixels, with a film grain over it: compresses as photos do
        base = Image.new("RGB", (4, 3))
        base.putdata([tuple(rng.randrange(256) for _ in range(3)) for _ in range(12)])
        base = base.resize(size, Image.BICUBIC)
        noise = Image.new("RGB", size)
        for x in range(0, size[0], 256):
            for y in range(0, size[1], 256):
                noise.paste(grain, (x, y))
        return Image.blend(base, noise, 0.12)

    def screen(size, alpha):
        im = Image.new("RGBA" if alpha else "RGB", size, (245, 245, 245, 0) if alpha else (245, 245, 245))
        draw = ImageDraw.Draw(im)
        for _ in range(40):
            x, y = rng.randrange(size[0]), rng.randrange(size[1])
            draw.rectangle([x, y, x + rng.randrange(20, 400), y + rng.randrange(10, 60)],
                           fill=tuple(rng.randrange(256) for _ in range(3)) + ((255,) if alpha else ()))
        return im

    for i in range(count):
        kind = rng.random()
        if kind < 0.6:
            photo(rng.choice(PHOTO_SIZES)).save(folder / f"{i:04}.jpg", quality=rng.choice([80, 88, 95]))
        elif kind < 0.8:
            screen(rng.choice(SCREEN_SIZES), alpha=rng.random() < 0.3).save(folder / f"{i:04}.png")
        elif kind < 0.9:
            size = (rng.randrange(100, 800), rng.randrange(100, 600))
            frames = [screen(size, False).convert("P") for _ in range(rng.choice([1, 1, 3, 8]))]
            frames[0].save(folder / f"{i:04}.gif", save_all=len(frames) > 1, append_images=frames[1:], duration=80, loop=0)
        else:
            photo(rng.choice(PHOTO_SIZES[:4])).save(folder / f"{i:04}.webp", quality=80)
    done.write_text("")
    return sorted(p for p in folder.iterdir() if p.name != "done")


def timed(cmd, scratch):
    """Wall seconds, CPU seconds and peak resident MB of the largest process of one run (GNU time: the largest of
    the process and the children it waited for)."""
    times = scratch / "time"
    r = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", times, *map(str, cmd)], capture_output=True,
                       env=dict(os.environ, SWIFT_BACKTRACE="enable=no"))
    if r.returncode != 0:
        sys.exit(f"bench/thumbnails.py: {cmd[0]} failed: {r.stderr.decode(errors='replace')[-2000:]}")
    wall, user, system, kb = times.read_text().split()[-4:]
    return r.stdout, float(wall), float(user) + float(system), int(kb) / 1024


def warm(files):
    for f in files:
        f.read_bytes()


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    if not (BIN / "mail-thumbnail").exists():
        sys.exit(f"bench/thumbnails.py: no {BIN}/mail-thumbnail: run make build first")
    for tool in ("/usr/bin/time", "vipsthumbnail"):
        if not shutil.which(tool):
            sys.exit(f"bench/thumbnails.py: {tool} is missing (scripts/install-deps --bench installs it)")
    files = pictures(count)
    megapixels = 0.0
    from PIL import Image
    for f in files:
        with Image.open(f) as im:
            megapixels += im.width * im.height / 1e6
    kinds = {}
    for f in files:
        kinds[f.suffix] = kinds.get(f.suffix, 0) + 1
    print(f"{len(files)} pictures, {megapixels:.0f} megapixels, {sum(f.stat().st_size for f in files) / 1e6:.0f} MB: "
          + ", ".join(f"{n} {k[1:]}" for k, n in sorted(kinds.items())))
    warm(files)
    results = []
    with tempfile.TemporaryDirectory(prefix="mailpipe-thumbnails-") as scratch:
        scratch = pathlib.Path(scratch)

        out = scratch / "mail-thumbnail"
        out.mkdir()
        stdout, wall, cpu, mb = timed([BIN / "mail-thumbnail", "--size", THUMBNAIL, "--display", DISPLAY, "--out", out, *files],
                                      scratch)
        lines = [json.loads(line) for line in stdout.splitlines()]
        refused = [line for line in lines if line["kind"] == "file"]
        if refused:
            sys.exit(f"bench/thumbnails.py: mail-thumbnail refused {len(refused)}: {refused[0]}")
        results.append(("mail-thumbnail", wall, cpu, mb, len(list(out.iterdir()))))

        out = scratch / "vipsthumbnail"
        out.mkdir()
        total = [0.0, 0.0, 0.0]
        for size, suffix in [(DISPLAY, ""), (THUMBNAIL, ".t")]:
            _, wall, cpu, mb = timed(["vipsthumbnail", "-s", size, "-o", f"{out}/%s{suffix}.jpg[Q=85,strip]", *files], scratch)
            total = [total[0] + wall, total[1] + cpu, max(total[2], mb)]
        results.append(("vipsthumbnail", *total, len(list(out.iterdir()))))

        if pathlib.Path("/usr/bin/mogrify").exists():
            total = [0.0, 0.0, 0.0]
            for size in (DISPLAY, THUMBNAIL):
                out = scratch / f"imagemagick-{size}"
                out.mkdir()
                _, wall, cpu, mb = timed(["/usr/bin/mogrify", "-path", out, "-format", "jpg", "-quality", "85",
                                          "-thumbnail", f"{size}x{size}>", *[f"{f}[0]" for f in files]], scratch)
                total = [total[0] + wall, total[1] + cpu, max(total[2], mb)]
            made = sum(len(list((scratch / f"imagemagick-{s}").iterdir())) for s in (DISPLAY, THUMBNAIL))
            results.append(("imagemagick mogrify", *total, made))
        else:
            print("(ImageMagick is not installed: apt-get install imagemagick to compare with it)")

    ours = results[0]
    print(f"\n{'tool':<22} {'wall s':>8} {'CPU s':>8} {'ms/picture':>11} {'peak MB':>8} {'files made':>11} "
          f"{'time vs us':>11} {'CPU vs us':>10} {'memory vs us':>13}")
    for name, wall, cpu, mb, made in results:
        print(f"{name:<22} {wall:>8.2f} {cpu:>8.2f} {wall * 1000 / len(files):>11.1f} {mb:>8.1f} {made:>11} "
              f"{wall / ours[1]:>10.2f}x {cpu / ours[2]:>9.2f}x {mb / ours[3]:>12.2f}x")


if __name__ == "__main__":
    main()
