#!/usr/bin/env python3
"""Feeds the CLI every class of bad input we know of and prints a Markdown table of what the
user sees (the message on stderr and the exit status): the README's "Bad input" table.
Files are made here from nothing (struct + zlib) in a temporary folder.

    python3 Tools/fuzz/bad_inputs.py .build/release/blazeface
"""
import pathlib, shutil, struct, subprocess, sys, tempfile, zlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
IMAGE = ROOT / "Tests" / "Fixtures" / "images" / "astronaut_tiny48.png"
SHORT = ROOT / "Weights" / "face_detection_short_range.bin"


def chunk(kind, data, crc=None):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", crc if crc is not None else zlib.crc32(body))


def png(width, height, depth=8, color=2, rows=None, plte=True, ihdr_crc=None):
    sig = b"\x89PNG\r\n\x1a\n"
    ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, color, 0, 0, 0), ihdr_crc)
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color]
    if rows is None:
        rows = b"".join(b"\0" + bytes(width * channels * depth // 8) for _ in range(height))
    extra = chunk(b"PLTE", bytes(3 * 4)) if color == 3 and plte else b""
    return sig + ihdr + extra + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def cases(tmp):
    good = IMAGE.read_bytes()
    weights = SHORT.read_bytes()
    def file(name, data):
        p = tmp / name; p.write_bytes(data); return str(p)
    def detect(*args): return ["detect", *args]
    yield "image: empty file", detect(file("empty.png", b""))
    yield "image: not an image (text)", detect(file("notes.png", b"hello, world\n"))
    yield "image: PNG signature only", detect(file("sig.png", good[:8]))
    yield "image: PNG cut in its pixel data", detect(file("cut.png", good[: len(good) // 2]))
    yield "image: bad CRC in the header chunk", detect(file("crc.png", png(8, 8, ihdr_crc=0)))
    yield "image: palette image without a palette", detect(file("noplte.png", png(8, 8, color=3, plte=False)))
    yield "image: header claims 65535x65535", detect(file("bomb.png", png(65535, 65535, rows=b"")))
    yield "image: zero width", detect(file("zero.png", png(0, 8, rows=b"")))
    yield "image: 16-bit, interlaced, gray+alpha", detect(str(ROOT / "Tests/BlazeImageTests/Resources/gray_alpha16.png"))
    yield "image: file does not exist", detect(str(tmp / "missing.png"))
    yield "image: GIF (an unknown format)", detect(file("anim.gif", b"GIF89a" + bytes(40)))
    jpeg = (ROOT / "Tests/Fixtures/images/jpeg/astronaut_baseline.jpg").read_bytes()
    yield "JPEG: cut in its scan", detect(file("cut.jpg", jpeg[: len(jpeg) // 2]))
    yield "JPEG: header only", detect(file("soi.jpg", jpeg[:2]))
    sof = jpeg.find(b"\xff\xc0")
    big = bytearray(jpeg); big[sof + 5:sof + 9] = struct.pack(">HH", 65500, 65500)
    yield "JPEG: header claims 65500x65500", detect(file("bomb.jpg", bytes(big)))
    yield "PPM: maxval 0", detect(file("max0.ppm", b"P6 2 2 0\n" + bytes(12)))
    yield "PPM: pixel data cut short", detect(file("short.ppm", b"P6 4 4 255\n" + bytes(20)))
    yield "PPM: header claims 100000x100000", detect(file("bomb.ppm", b"P6 100000 100000 255\n" + bytes(16)))
    yield "PGM: ASCII sample above maxval", detect(file("ascii.pgm", b"P2 2 1 15 3 99\n"))
    folder = tmp / "batch"; folder.mkdir()
    shutil.copy(IMAGE, folder / "a.png"); (folder / "b.png").write_bytes(good[:100]); shutil.copy(IMAGE, folder / "c.png")
    (folder / "notes.txt").write_bytes(b"not an image")
    yield "batch: a folder with a cut PNG among good ones (and a text file)", detect(str(folder))
    def track(*args): return ["track", *args]
    yield "Y4M: not a YUV4MPEG2 stream", track(file("bad.y4m", b"RIFF....AVI LIST"))
    yield "Y4M: header without a width", track(file("now.y4m", b"YUV4MPEG2 H4 C420jpeg\nFRAME\n" + bytes(24)))
    yield "Y4M: header claims 100000x100000", track(file("bomb.y4m", b"YUV4MPEG2 W100000 H100000 C420jpeg\nFRAME\n"))
    yield "Y4M: unsupported chroma C411", track(file("c411.y4m", b"YUV4MPEG2 W4 H4 C411\nFRAME\n" + bytes(24)))
    yield "Y4M: stream cut inside a frame", track(file("cut.y4m", b"YUV4MPEG2 W4 H4 C420jpeg\nFRAME\n" + bytes(10)))
    yield "weights: file does not exist", detect(str(IMAGE), "--weights", str(tmp / "missing.bin"))
    yield "weights: not a weights file", detect(str(IMAGE), "--weights", file("w1.bin", b"hello, world\n"))
    yield "weights: another format version", detect(str(IMAGE), "--weights", file("w2.bin", weights[:4] + struct.pack("<I", 9) + weights[8:]))
    yield "weights: truncated", detect(str(IMAGE), "--weights", file("w3.bin", weights[: len(weights) // 2]))
    flipped = bytearray(weights); flipped[-100] ^= 0x40
    yield "weights: one bit flipped (checksum)", detect(str(IMAGE), "--weights", file("w4.bin", bytes(flipped)))
    yield "weights: short-range file for the full-range model", detect(str(IMAGE), "--model", "full", "--weights", str(SHORT))
    yield "option: --min-detection-confidence nan", detect(str(IMAGE), "--min-detection-confidence", "nan")
    yield "option: --min-detection-confidence 1.5", detect(str(IMAGE), "--min-detection-confidence", "1.5")
    yield "option: --min-suppression-threshold -1", detect(str(IMAGE), "--min-suppression-threshold=-1")
    yield "option: --max-faces 0", detect(str(IMAGE), "--max-faces", "0")
    yield "option: --threads 0 (bench)", ["bench", "--threads", "0", "--iterations", "1"]


def main():
    cli = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / ".build/release/blazeface")
    tmp = pathlib.Path(tempfile.mkdtemp())
    try:
        print("| bad input | what the user sees (stderr; stdout if any) | exit |")
        print("| --- | --- | --- |")
        for label, args in cases(tmp):
            r = subprocess.run([cli, *args], capture_output=True, text=True, timeout=60)
            def clean(text): return text.strip().replace(str(tmp) + "/", "").replace(str(ROOT) + "/", "")
            said = clean(r.stderr).splitlines()[0] if r.stderr.strip() else ""
            lines = clean(r.stdout).splitlines()
            if label.startswith("batch"):
                said = f"{len(lines)} lines on stdout, the bad one: " + next((l for l in lines if '"error"' in l), "")
            elif r.returncode == 0 and lines:
                said = "decoded; " + lines[0][:60] + "..."
            print(f"| {label} | `{said.replace('|', '/')}` | {r.returncode} |")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
