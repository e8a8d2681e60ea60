#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora (Fuzz/corpus/<target>/): small valid inputs the fuzzers
mutate. Everything is built here from nothing: tiny TFLite flatbuffers written field by field
from TFLite's schema (schema.fbs; needs the `flatbuffers` package), tiny flat weights files
written from Weights/README.md's format, WebP containers written chunk by chunk, TIFF files
directory by directory, and copies of
the small PNG test images.

    python3 -m pip install -r Tools/fuzz/requirements.txt && python3 Tools/fuzz/make_seeds.py
"""
import pathlib, shutil, struct

import flatbuffers
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "Fuzz" / "corpus"

# --- TFLite (schema.fbs field slots) ------------------------------------------------------
FLOAT32, FLOAT16 = 0, 1
OPS = {"ADD": 0, "CONV_2D": 3, "DEPTHWISE_CONV_2D": 4, "DEQUANTIZE": 6, "PAD": 34, "RESHAPE": 22,
       "RESIZE_BILINEAR": 23, "DEPTH_TO_SPACE": 5, "MAX_POOL_2D": 17}
OPTIONS = {"CONV_2D": 1, "DEPTHWISE_CONV_2D": 2, "ADD": 11, "RESIZE_BILINEAR": 15}


def vector(b, items, kind):
    start = {"int": b.StartVector, "uoffset": b.StartVector, "ubyte": b.StartVector}[kind]
    size = {"int": 4, "uoffset": 4, "ubyte": 1}[kind]
    start(size, len(items), size)
    for item in reversed(items):
        {"int": b.PrependInt32, "uoffset": b.PrependUOffsetTRelative, "ubyte": b.PrependUint8}[kind](item)
    return b.EndVector()


def tflite_model(tensors, operators, inputs, outputs):
    """tensors: (name, shape, type, bytes or None); operators: (op, inputs, outputs, options)."""
    b = flatbuffers.Builder(1024)
    buffers = [vector(b, [], "ubyte")]   # buffer 0: empty, by convention
    tensor_buffers = []
    for _, _, _, data in tensors:
        if data is None:
            tensor_buffers.append(0)
        else:
            tensor_buffers.append(len(buffers))
            buffers.append(vector(b, list(data), "ubyte"))
    buffer_tables = []
    for data in buffers:
        b.StartObject(1); b.PrependUOffsetTRelativeSlot(0, data, 0); buffer_tables.append(b.EndObject())
    tensor_tables = []
    for (name, shape, kind, _), buf in zip(tensors, tensor_buffers):
        n = b.CreateString(name); s = vector(b, shape, "int")
        b.StartObject(8)
        b.PrependUOffsetTRelativeSlot(0, s, 0); b.PrependInt8Slot(1, kind, 0)
        b.PrependUint32Slot(2, buf, 0); b.PrependUOffsetTRelativeSlot(3, n, 0)
        tensor_tables.append(b.EndObject())
    codes = sorted({op for op, *_ in operators}, key=list(OPS).index)
    code_tables = []
    for op in codes:
        b.StartObject(4)
        b.PrependInt8Slot(0, min(OPS[op], 127), 0); b.PrependInt32Slot(2, 1, 1); b.PrependInt32Slot(3, OPS[op], 0)
        code_tables.append(b.EndObject())
    op_tables = []
    for op, ins, outs, options in operators:
        opts = None
        if op in ("CONV_2D", "DEPTHWISE_CONV_2D"):
            b.StartObject(7)
            b.PrependInt8Slot(0, options.get("padding", 1), 0)
            b.PrependInt32Slot(1, options.get("stride", 1), 0); b.PrependInt32Slot(2, options.get("stride", 1), 0)
            if op == "DEPTHWISE_CONV_2D":
                b.PrependInt32Slot(3, 1, 0); b.PrependInt8Slot(4, options.get("activation", 0), 0)
                b.PrependInt32Slot(5, 1, 1); b.PrependInt32Slot(6, 1, 1)
            else:
                b.PrependInt8Slot(3, options.get("activation", 0), 0)
                b.PrependInt32Slot(4, 1, 1); b.PrependInt32Slot(5, 1, 1)
            opts = b.EndObject()
        elif op == "ADD":
            b.StartObject(2); b.PrependInt8Slot(0, options.get("activation", 0), 0); opts = b.EndObject()
        elif op == "RESIZE_BILINEAR":
            b.StartObject(4); b.PrependBoolSlot(3, True, False); opts = b.EndObject()
        i = vector(b, ins, "int"); o = vector(b, outs, "int")
        b.StartObject(6)
        b.PrependUint32Slot(0, codes.index(op), 0)
        b.PrependUOffsetTRelativeSlot(1, i, 0); b.PrependUOffsetTRelativeSlot(2, o, 0)
        if opts is not None:
            b.PrependUint8Slot(3, OPTIONS[op], 0); b.PrependUOffsetTRelativeSlot(4, opts, 0)
        op_tables.append(b.EndObject())
    t = vector(b, tensor_tables, "uoffset"); o = vector(b, op_tables, "uoffset")
    gi = vector(b, inputs, "int"); go = vector(b, outputs, "int")
    b.StartObject(5)
    b.PrependUOffsetTRelativeSlot(0, t, 0); b.PrependUOffsetTRelativeSlot(1, gi, 0)
    b.PrependUOffsetTRelativeSlot(2, go, 0); b.PrependUOffsetTRelativeSlot(3, o, 0)
    subgraph = b.EndObject()
    c = vector(b, code_tables, "uoffset"); s = vector(b, [subgraph], "uoffset"); bu = vector(b, buffer_tables, "uoffset")
    b.StartObject(8)
    b.PrependUint32Slot(0, 3, 0); b.PrependUOffsetTRelativeSlot(1, c, 0)
    b.PrependUOffsetTRelativeSlot(2, s, 0); b.PrependUOffsetTRelativeSlot(4, bu, 0)
    b.Finish(b.EndObject(), file_identifier=b"TFL3")
    return bytes(b.Output())


def f32(a): return np.asarray(a, dtype="<f4").tobytes()
def f16(a): return np.asarray(a, dtype="<f2").tobytes()
def i32(a): return np.asarray(a, dtype="<i4").tobytes()


def tflite_seeds():
    rng = np.random.default_rng(1)
    conv = tflite_model(
        [("input", [1, 4, 4, 3], FLOAT32, None), ("w", [2, 3, 3, 3], FLOAT32, f32(rng.normal(size=54))),
         ("b", [2], FLOAT32, f32([0.1, -0.2])), ("y", [1, 4, 4, 2], FLOAT32, None)],
        [("CONV_2D", [0, 1, 2], [3], {"padding": 0, "activation": 1})], [0], [3])
    mixed = tflite_model(
        [("input", [1, 4, 4, 2], FLOAT32, None), ("w16", [1, 3, 3, 2], FLOAT16, f16(rng.normal(size=18))),
         ("w", [1, 3, 3, 2], FLOAT32, None), ("b", [2], FLOAT32, f32([0, 1])),
         ("pads", [4, 2], 2, i32([0, 0, 1, 1, 1, 1, 0, 0])), ("padded", [1, 6, 6, 2], FLOAT32, None),
         ("dw", [1, 4, 4, 2], FLOAT32, None), ("sum", [1, 4, 4, 2], FLOAT32, None),
         ("size", [2], 2, i32([8, 8])), ("big", [1, 8, 8, 2], FLOAT32, None)],
        [("DEQUANTIZE", [1], [2], {}), ("PAD", [0, 4], [5], {}), ("DEPTHWISE_CONV_2D", [5, 2, 3], [6], {}),
         ("ADD", [6, 0], [7], {"activation": 1}), ("RESIZE_BILINEAR", [7, 8], [9], {})], [0], [9])
    return {"conv.tflite": conv, "dequantize_pad_depthwise_add_resize.tflite": mixed}


# --- flat weights (Weights/README.md) ------------------------------------------------------
def string(s): b = s.encode(); return struct.pack("<I", len(b)) + b


def weights_file(metadata, tensors, nodes):
    """tensors: (name, shape, float32 values); nodes: (op, inputs, outputs, {key: [ints]})."""
    data, table = b"", b""
    for name, shape, values in tensors:
        raw = f32(values)
        data += b"\0" * (-len(data) % 64)
        table += string(name) + struct.pack("<II", 0, len(shape)) + struct.pack(f"<{len(shape)}I", *shape)
        table += struct.pack("<QQ", len(data), len(raw))
        data += raw
    graph = b""
    for op, ins, outs, attrs in nodes:
        graph += string(op) + struct.pack("<I", len(ins)) + b"".join(map(string, ins))
        graph += struct.pack("<I", len(outs)) + b"".join(map(string, outs)) + struct.pack("<I", len(attrs))
        for k, v in attrs.items():
            graph += string(k) + struct.pack("<I", len(v)) + struct.pack(f"<{len(v)}q", *v)
    body = b"".join(string(k) + string(v) for k, v in metadata) + table + graph
    offset = (48 + len(body) + 63) // 64 * 64
    rest = body + b"\0" * (offset - 48 - len(body)) + data
    checksum = 0xcbf29ce484222325
    for byte in rest:
        checksum = ((checksum ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    header = b"BFWF" + struct.pack("<IIIII", 1, 64, len(metadata), len(tensors), len(nodes))
    header += struct.pack("<QQQ", offset, len(data), checksum)
    return header + rest


def weights_seeds():
    rng = np.random.default_rng(2)
    meta = [("name", "seed")]
    conv = weights_file(meta, [("w", [2, 3, 3, 3], rng.normal(size=54)), ("b", [2], [0.5, -0.5])],
                        [("INPUT", [], ["x"], {"shape": [1, 5, 5, 3]}),
                         ("CONV_2D", ["x", "w", "b"], ["y"], {"stride": [2, 2], "padding": [0], "activation": [1]}),
                         ("OUTPUT", ["y"], [], {})])
    block = weights_file(meta, [("dw", [1, 3, 3, 4], rng.normal(size=36)), ("dwb", [4], [0, 0, 0, 0]),
                                ("pw", [4, 1, 1, 4], rng.normal(size=16)), ("pwb", [4], [1, 1, 1, 1])],
                         [("INPUT", [], ["x"], {"shape": [1, 6, 6, 4]}),
                          ("PAD", ["x"], ["p"], {"paddings": [0, 0, 1, 1, 1, 1, 0, 0]}),
                          ("DEPTHWISE_CONV_2D", ["p", "dw", "dwb"], ["d"], {"stride": [1, 1], "padding": [1], "activation": [0]}),
                          ("CONV_2D", ["d", "pw", "pwb"], ["c"], {"stride": [1, 1], "padding": [1], "activation": [0]}),
                          ("ADD", ["c", "x"], ["a"], {"activation": [1]}),
                          ("MAX_POOL_2D", ["a"], ["m"], {"filter": [2, 2], "stride": [2, 2], "padding": [1], "activation": [0]}),
                          ("RESIZE_BILINEAR", ["m"], ["r"], {"size": [6, 6], "align_corners": [0], "half_pixel_centers": [1]}),
                          ("ADD", ["r", "a"], ["s"], {"activation": [0]}),
                          ("DEPTH_TO_SPACE", ["s"], ["t"], {"block_size": [2]}),
                          ("RESHAPE", ["t"], ["u"], {"shape": [1, 144, 1]}),
                          ("OUTPUT", ["u"], [], {})])
    return {"conv.bin": conv, "block.bin": block}


# --- face geometry metadata (protobuf wire format, geometry_pipeline_metadata.proto) -------
def varint(v):
    out = b""
    while True:
        byte, v = v & 0x7F, v >> 7
        out += bytes([byte | (0x80 if v else 0)])
        if not v:
            return out


def field(number, wire, payload):
    tag = varint(number << 3 | wire)
    return tag + (varint(len(payload)) + payload if wire == 2 else payload)


def geometry_seeds():
    """A six-vertex mesh (a bent strip), two triangles and a four-landmark basis."""
    vertices = [(x, y, 0.3 * x * y, (x + 1) / 2, (y + 1) / 2) for y in (-1.0, 1.0) for x in (-1.0, 0.0, 1.0)]
    mesh = field(1, 0, varint(0)) + field(2, 0, varint(0))
    mesh += field(3, 2, struct.pack(f"<{5 * len(vertices)}f", *[c for v in vertices for c in v]))
    mesh += field(4, 2, b"".join(varint(i) for i in (0, 1, 3, 1, 4, 3, 1, 2, 4, 2, 5, 4)))
    basis = b"".join(field(2, 2, field(1, 0, varint(i)) + field(2, 5, struct.pack("<f", w)))
                     for i, w in ((0, 0.5), (2, 1.0), (3, 0.25), (5, 0.75)))
    return {"strip.binarypb": field(1, 2, mesh) + basis + field(3, 0, varint(1))}


# --- WebP's RIFF container (Google's WebP Container Specification) --------------------------
def riff_chunk(kind, payload):
    return kind + struct.pack("<I", len(payload)) + payload + (b"\0" if len(payload) % 2 else b"")


def webp_file(chunks):
    body = b"WEBP" + b"".join(chunks)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def webp_seeds():
    """Containers only (the fuzzer walks chunks, it decodes nothing): a simple file, an extended
    one with an odd-sized profile and an EXIF block (JPEG's prefix, Orientation 6, a GPS IFD),
    and an animation."""
    vp8 = riff_chunk(b"VP8 ", bytes(range(10)))
    def ifd_entry(tag, kind, count, value): return struct.pack(">HHI", tag, kind, count) + value.ljust(4, b"\0")
    tiff = b"MM\0\x2a" + struct.pack(">I", 8) + struct.pack(">H", 2) + ifd_entry(0x0112, 3, 1, struct.pack(">H", 6))
    tiff += ifd_entry(0x8825, 4, 1, struct.pack(">I", 38)) + b"\0\0\0\0"
    tiff += struct.pack(">H", 1) + ifd_entry(0x0001, 2, 2, b"N\0") + b"\0\0\0\0"
    extended = webp_file([riff_chunk(b"VP8X", bytes([0x28, 0, 0, 0, 9, 0, 0, 9, 0, 0])), riff_chunk(b"ICCP", b"abc"), vp8,
                          riff_chunk(b"EXIF", b"Exif\0\0" + tiff)])
    animated = webp_file([riff_chunk(b"VP8X", bytes([0x02, 0, 0, 0, 9, 0, 0, 9, 0, 0])), riff_chunk(b"ANIM", bytes(6)),
                          riff_chunk(b"ANMF", bytes(16) + vp8)])
    return {"simple.webp": webp_file([vp8]), "extended.webp": extended, "animated.webp": animated}


# --- TIFF 6.0's header and directories ----------------------------------------------------
def tiff_file(directories, big_endian=False, magic=42):
    """A TIFF file of one picture's 2x2 RGB strip and a chain of directories, each a list of
    (tag, type, values); out-of-line values after each directory."""
    e = ">" if big_endian else "<"
    sizes = {1: ("B", 1), 3: ("H", 2), 4: ("I", 4), 7: ("B", 1)}
    out = bytearray((b"MM" if big_endian else b"II") + struct.pack(e + "HI", magic, 0))
    out += bytes(range(12))
    link = 4
    for entries in directories:
        at = len(out)
        struct.pack_into(e + "I", out, link, at)
        outside = at + 2 + 12 * len(entries) + 4
        body, values = b"", b""
        for tag, kind, vals in sorted(entries):
            code, size = sizes[kind]
            data = struct.pack(e + code * len(vals), *vals)
            if len(data) <= 4:
                field = data.ljust(4, b"\0")
            else:
                field = struct.pack(e + "I", outside)
                values += data + (b"\0" if len(data) % 2 else b"")
                outside += len(data) + len(data) % 2
            body += struct.pack(e + "HHI", tag, kind, len(vals)) + field
        out += struct.pack(e + "H", len(entries)) + body
        link = len(out)
        out += b"\0\0\0\0" + values
    return bytes(out)


def tiff_seeds():
    """Directories only (the fuzzer decodes nothing): an upright RGB strip with a profile and an
    Orientation, a big-endian file of two pages, one whose second directory is a preview, a
    raw file's (SubIFDs, DNGVersion), a JPEG-compressed one, and a BigTIFF header."""
    rgb = [(256, 4, [2]), (257, 4, [2]), (258, 3, [8, 8, 8]), (259, 3, [1]), (262, 3, [2]), (273, 4, [8]), (277, 3, [3]),
           (278, 4, [2]), (279, 4, [12])]
    return {
        "upright.tif": tiff_file([rgb + [(274, 3, [6]), (34675, 7, list(b"a profile"))]]),
        "pages_be.tif": tiff_file([rgb, rgb], big_endian=True),
        "preview.tif": tiff_file([rgb, rgb + [(254, 4, [1])]]),
        "raw.dng": tiff_file([rgb + [(254, 4, [1]), (330, 4, [8]), (50706, 1, [1, 4, 0, 0])]]),
        "jpeg.tif": tiff_file([[t for t in rgb if t[0] != 259] + [(259, 3, [7])]]),
        "big.tif": b"II\x2b\0\x08\0\0\0" + bytes(8),
    }


def main():
    for target, files in [("FuzzTFLite", tflite_seeds()), ("FuzzWeights", weights_seeds()),
                          ("FuzzGeometry", geometry_seeds())]:
        folder = CORPUS / target
        folder.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            (folder / name).write_bytes(data)
    pnm = CORPUS / "FuzzPNM"
    pnm.mkdir(parents=True, exist_ok=True)
    pixels = bytes((7 * i) % 256 for i in range(4 * 3 * 3))
    (pnm / "rgb.ppm").write_bytes(b"P6\n# seed\n4 3\n255\n" + pixels)
    (pnm / "gray.pgm").write_bytes(b"P5 4 3 255\n" + pixels[:12])
    (pnm / "gray16.pgm").write_bytes(b"P5\n2 2\n65535\n" + bytes(range(8)))
    (pnm / "ascii.ppm").write_bytes(b"P3\n2 1\n15\n0 1 2 15 14 13\n")
    (pnm / "ascii.pgm").write_bytes(b"P2 2 2 255 0 64 128 255\n")
    jpeg = CORPUS / "FuzzJPEG"
    jpeg.mkdir(parents=True, exist_ok=True)
    for source in sorted((ROOT / "Tests" / "Fixtures" / "images" / "jpeg").glob("orientation_*.jpg")):
        shutil.copy(source, jpeg / source.name)
    y4m = CORPUS / "FuzzY4M"
    y4m.mkdir(parents=True, exist_ok=True)
    frame420 = bytes(range(16)) + bytes([100, 110, 120, 130]) + bytes([140, 150, 160, 170])
    (y4m / "c420.y4m").write_bytes(b"YUV4MPEG2 W4 H4 F30:1 Ip A1:1 C420jpeg\n" + 2 * (b"FRAME\n" + frame420))
    (y4m / "c444_full.y4m").write_bytes(b"YUV4MPEG2 W2 H2 F25:1 C444 XCOLORRANGE=FULL\n" + b"FRAME Ixyz\n" + bytes(range(12)))
    (y4m / "mono.y4m").write_bytes(b"YUV4MPEG2 W3 H1 Cmono\nFRAME\n" + bytes([0, 128, 255]))
    bundle = CORPUS / "FuzzTaskBundle"
    bundle.mkdir(parents=True, exist_ok=True)
    import io, zipfile
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as z:
        z.writestr("conv.tflite", tflite_seeds()["conv.tflite"])
        z.writestr("notes.txt", b"a stored member")
    (bundle / "two_members.task").write_bytes(buffer.getvalue())
    webp = CORPUS / "FuzzWebP"
    webp.mkdir(parents=True, exist_ok=True)
    for name, data in webp_seeds().items():
        (webp / name).write_bytes(data)
    tiff = CORPUS / "FuzzTIFF"
    tiff.mkdir(parents=True, exist_ok=True)
    for name, data in tiff_seeds().items():
        (tiff / name).write_bytes(data)
    png = CORPUS / "FuzzPNG"
    png.mkdir(parents=True, exist_ok=True)
    for source in sorted((ROOT / "Tests" / "BlazeImageTests" / "Resources").glob("*.png")):
        shutil.copy(source, png / source.name)
    shutil.copy(ROOT / "Tests" / "Fixtures" / "images" / "astronaut_tiny48.png", png / "astronaut_tiny48.png")


if __name__ == "__main__":
    main()
