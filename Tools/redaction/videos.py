"""Synthetic videos with ground-truth face boxes, for the redaction scripts: fixture faces
moving over a slowly panning photo, entering and leaving the frame, crossing each other, and
covered by a passing card for 1 to 4 frames. Deterministic for a seed.

Every face's ground truth per frame: its box (MediaPipe's box of the astronaut's face, scaled),
and the share of that box that is visible (inside the frame, not under the card or a face drawn
in front of it).
"""
import numpy as np
from PIL import Image

import scenes


class Face:
    def __init__(self, rng, width, height, frames, face_width, through=False):
        self.sprite, self.face = scenes.head_sprite(face_width, rng)
        sw, sh = self.sprite.size
        # A path between two points (possibly outside the frame: entering or leaving), with a
        # sway, over a random part of the video; or (`through`) from wholly outside one edge to
        # wholly outside the opposite one, so that the face comes in and goes out.
        margin = 0.6
        self.p0 = np.array([rng.uniform(-margin * sw, width - (1 - margin) * sw), rng.uniform(-0.3 * sh, height - 0.7 * sh)])
        self.p1 = np.array([rng.uniform(-margin * sw, width - (1 - margin) * sw), rng.uniform(-0.3 * sh, height - 0.7 * sh)])
        if through:
            if rng.random() < 0.7:   # across: left to right or right to left
                self.p0[0], self.p1[0] = -sw, width
            else:                    # down or up
                self.p0[1], self.p1[1] = -sh, height
            if rng.random() < 0.5:
                self.p0, self.p1 = self.p1, self.p0
        self.start = int(rng.integers(0, frames // 3)) if rng.random() < 0.4 else 0
        self.end = int(rng.integers(2 * frames // 3, frames + 1)) if rng.random() < 0.4 else frames
        self.sway = rng.uniform(0, 0.15 * sh), rng.uniform(0.05, 0.2), rng.uniform(0, 6.3)

    def position(self, i):
        if not self.start <= i < self.end:
            return None
        t = (i - self.start) / max(1, self.end - self.start - 1)
        p = self.p0 + (self.p1 - self.p0) * t
        return int(round(p[0])), int(round(p[1] + self.sway[0] * np.sin(self.sway[1] * i + self.sway[2])))


def scene(seed, width=1280, height=720, frames=150, faces=6, min_face=30, max_face=160, order="size", through=False):
    """Yields (RGB uint8 array, ground truth) per frame; `order` is which face is drawn over
    which: "size" (nearer faces are larger, as in a street) or "random" (a small face may pass in
    front of a larger one, a poster or a child nearer the camera); `through`, every face comes in
    through one edge and goes out through the opposite one. Ground truth is a list of
    {"id", "box": [x, y, w, h], "visible": share of the box visible, "region": the box's
    pixels in the frame (x0, y0, x1, y1), "seen": which of them show the face (bool array)}."""
    rng = np.random.default_rng(seed)
    photo = scenes.background(width + frames * 2 + 8, height + 8, rng, scenes.backgrounds())
    widths = [float(np.exp(rng.uniform(np.log(min_face), np.log(max_face)))) for _ in range(faces)]
    if faces >= 2:
        widths[1] = min(max_face, widths[0] * rng.uniform(0.8, 1.25))   # the crossing pair: about one size
    people = [Face(rng, width, height, frames, w, through) for w in widths]
    # Two faces cross: the second walks the first one's path backwards.
    if faces >= 2:
        people[1].p0, people[1].p1 = people[0].p1.copy(), people[0].p0.copy()
        people[1].start, people[1].end = people[0].start, people[0].end
    # Nearer faces are larger: drawn far to near, a small face never passes in front of a large
    # one; or drawn in a random order (its own generator: the scene is otherwise the same).
    order = (sorted(range(faces), key=lambda k: widths[k]) if order == "size"
             else list(np.random.default_rng(seed + 7919).permutation(faces)))
    # A card passes over a face, covering it for 1 to 4 frames, a few times in the video.
    covers = []
    for _ in range(4):
        covers.append((int(rng.integers(5, frames - 5)), int(rng.integers(1, 5)), int(rng.integers(len(people)))))
    for i in range(frames):
        # The camera pans 2 pixels a frame; content is kept above luma 36 (RGB >= 24) so that a
        # solid black mask can be told from the picture.
        bg = photo.crop((2 * i, 4, 2 * i + width, 4 + height))
        canvas = bg.convert("RGBA")
        owner = np.full((height, width), -1, np.int16)     # which face's sprite is on top, per pixel
        truth = []
        for k in order:
            person = people[k]
            pos = person.position(i)
            if pos is None:
                continue
            layer = Image.new("RGBA", (width, height))
            layer.paste(person.sprite, pos)
            canvas = Image.alpha_composite(canvas, layer)
            a = np.asarray(layer)[..., 3] > 127
            owner[a] = k
            fx, fy, fw, fh = person.face
            truth.append({"id": k, "box": [pos[0] + fx, pos[1] + fy, fw, fh]})
        rgb = np.asarray(canvas.convert("RGB")).copy()
        for start, length, k in covers:
            if start <= i < start + length:
                g = next((t for t in truth if t["id"] == k), None)
                if g is not None:
                    x, y, w, h = g["box"]
                    x0, y0 = max(0, int(x - 0.3 * w)), max(0, int(y - 0.3 * h))
                    x1, y1 = min(width, int(x + 1.3 * w)), min(height, int(y + 1.3 * h))
                    rgb[y0:y1, x0:x1] = (200, 60, 40)
                    owner[y0:y1, x0:x1] = -2
        for t in truth:
            x, y, w, h = t["box"]
            x0, y0, x1, y1 = max(0, int(x)), max(0, int(y)), min(width, int(np.ceil(x + w))), min(height, int(np.ceil(y + h)))
            seen = owner[y0:y1, x0:x1] == t["id"] if x1 > x0 and y1 > y0 else np.zeros((0, 0), bool)
            t["visible"] = float(seen.sum()) / (w * h)
            t["region"], t["seen"] = (x0, y0, x1, y1), seen
        rgb = (24 + rgb.astype(np.uint16) * (255 - 24) // 255).astype(np.uint8)
        yield rgb, truth


FACE_FREE_PHOTOS = ("chelsea", "coffee", "rocket", "immunohistochemistry", "colorwheel", "brick", "gravel", "motorcycle_left")


def hand_sprite(size, rng):
    """A synthetic open hand about `size` pixels tall, palm towards the camera (a skin-coloured
    palm, four fingers and a thumb, shaded, with palm creases and a skin texture): what a camera
    clip of a hand shows a face detector. RGBA."""
    from PIL import ImageDraw, ImageFilter
    s = size
    alpha = Image.new("L", (s, s), 0)
    d = ImageDraw.Draw(alpha)
    palm = (0.22 * s, 0.38 * s, 0.78 * s, 0.95 * s)
    d.ellipse(palm, fill=255)
    for k, (cx, length) in enumerate(((0.29, 0.30), (0.42, 0.36), (0.55, 0.35), (0.67, 0.28))):
        w = 0.11 * s
        top = 0.45 * s - length * s
        d.rounded_rectangle((cx * s - w / 2, top, cx * s + w / 2, 0.55 * s), radius=w / 2, fill=255)
    d.polygon([(0.72 * s, 0.75 * s), (0.95 * s, 0.45 * s), (1.0 * s, 0.50 * s), (0.80 * s, 0.85 * s)], fill=255)
    alpha = alpha.filter(ImageFilter.GaussianBlur(max(1, s / 80)))
    skin = np.array([rng.uniform(190, 235), rng.uniform(140, 180), rng.uniform(110, 150)])
    yy, xx = np.mgrid[0:s, 0:s] / s
    light = 0.75 + 0.35 * np.exp(-((xx - 0.5) ** 2 + (yy - 0.6) ** 2) / 0.12)   # rounder in the middle
    noise = np.asarray(Image.fromarray((rng.normal(128, 40, (s // 4 + 1, s // 4 + 1))).clip(0, 255).astype(np.uint8))
                       .resize((s, s), Image.BICUBIC)).astype(float) / 128
    rgb = skin[None, None, :] * (light * (0.9 + 0.1 * noise))[..., None]
    creases = Image.new("L", (s, s), 0)
    c = ImageDraw.Draw(creases)
    w = max(1, s // 90)
    c.arc((0.25 * s, 0.45 * s, 0.85 * s, 0.80 * s), 200, 330, fill=255, width=w)
    c.arc((0.20 * s, 0.55 * s, 0.80 * s, 0.85 * s), 190, 320, fill=255, width=w)
    c.arc((0.30 * s, 0.50 * s, 0.70 * s, 1.05 * s), 100, 200, fill=255, width=w)
    for cx in (0.29, 0.42, 0.55, 0.67):   # finger joints
        for y in (0.30, 0.38):
            c.line((cx * s - 0.04 * s, y * s, cx * s + 0.04 * s, y * s), fill=200, width=w)
    crease = np.asarray(creases.filter(ImageFilter.GaussianBlur(max(1, s / 200)))).astype(float) / 255
    rgb = rgb * (1 - 0.35 * crease[..., None])
    img = Image.fromarray(rgb.clip(0, 255).astype(np.uint8)).convert("RGBA")
    img.putalpha(alpha)
    return img


def face_free_scene(seed, width=1280, height=720, frames=150):
    """A video without a face: a pan and zoom over one of scikit-image's photos without a face
    (a cat, coffee, a rocket, stained tissue, bricks...), and in every other clip a hand (a
    synthetic open palm, `hand_sprite`) moving, turning and coming nearer over it, as a hand
    waved at a camera. Yields RGB uint8 arrays."""
    from skimage import data
    rng = np.random.default_rng(seed)
    name = FACE_FREE_PHOTOS[seed % len(FACE_FREE_PHOTOS)]
    a = getattr(data, name)()
    if a.ndim == 2:
        a = np.stack([a] * 3, axis=-1)
    photo = Image.fromarray(a[..., :3].astype(np.uint8))
    hand = seed % 2 == 1
    z0, z1 = rng.uniform(1.0, 1.3), rng.uniform(1.0, 1.6)
    sprite = hand_sprite(int(rng.uniform(260, 420)), rng) if hand else None
    for i in range(frames):
        t = i / max(1, frames - 1)
        zoom = z0 + (z1 - z0) * t
        # The photo scaled to cover the frame `zoom` times, the window panning across it.
        scale = max(width / photo.width, height / photo.height) * zoom
        big_w, big_h = int(photo.width * scale) + 1, int(photo.height * scale) + 1
        big = photo.resize((big_w, big_h), Image.BILINEAR)
        x = int((big_w - width) * (0.5 + 0.5 * np.sin(2 * np.pi * t * 0.7 + seed)) )
        y = int((big_h - height) * (0.5 + 0.5 * np.cos(2 * np.pi * t * 0.5 + seed)))
        x, y = min(max(0, x), big_w - width), min(max(0, y), big_h - height)
        canvas = big.crop((x, y, x + width, y + height)).convert("RGBA")
        if hand:
            grow = 0.8 + 0.5 * (0.5 + 0.5 * np.sin(2 * np.pi * t + seed))
            s = int(sprite.width * grow)
            h = sprite.resize((s, s), Image.BILINEAR).rotate(25 * np.sin(2 * np.pi * t * 1.3 + seed), expand=False)
            cx = width / 2 + 0.3 * width * np.sin(2 * np.pi * t * 0.9 + seed)
            cy = height / 2 + 0.15 * height * np.cos(2 * np.pi * t * 1.1 + seed)
            layer = Image.new("RGBA", (width, height))
            layer.paste(h, (int(cx - s / 2), int(cy - s / 2)))
            canvas = Image.alpha_composite(canvas, layer)
        rgb = np.asarray(canvas.convert("RGB")).astype(np.uint16)
        yield (24 + rgb * (255 - 24) // 255).astype(np.uint8)
