#!/usr/bin/env python3
"""The review page in a real browser (issue 42): headless Chromium, driven by Selenium.

Makes a clip with two faces from the fixtures (ffmpeg), redacts it with --masks, writes the
review page, then, in the page: removes one mask's whole track, drags a box where no mask is,
exports; re-renders with --apply-masks (Y4M, so pixels compare exactly) and checks that the
output differs from the first one exactly there: inside the removed face's masks and the added
box (carried over every frame), nowhere else. Fails, naming what is missing, when Chromium,
its driver or Selenium is absent (Tools/install-deps.sh installs them).

    python3 Tools/review/browser_test.py .build/release/blazeface [--screenshot Docs/review-page.png]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

try:
    import selenium  # noqa: F401
except ImportError:
    # The distribution's Selenium (python3-selenium) is the system Python's: run under it.
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)


def fail(message):
    print(f"browser_test: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def run(*args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{' '.join(args)} exited {r.returncode}: {r.stderr.strip()}")
    return r


def y4m_frames(path):
    """Luma planes of a 4:2:0 Y4M file, with its size."""
    data = open(path, "rb").read()
    head, rest = data.split(b"\n", 1)
    fields = {f[:1]: f[1:] for f in head.split(b" ")[1:]}
    w, h = int(fields[b"W"]), int(fields[b"H"])
    size = w * h * 3 // 2 if w % 2 == 0 and h % 2 == 0 else w * h + 2 * ((w + 1) // 2) * ((h + 1) // 2)
    frames, i = [], 0
    while i < len(rest):
        j = rest.index(b"\n", i) + 1   # FRAME line
        frames.append(rest[j:j + w * h])
        i = j + size
    return w, h, frames


def browser():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        fail("Selenium is missing (apt-get install python3-selenium; Tools/install-deps.sh installs it)")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not chromium or not os.path.exists(driver):
        fail("Chromium or its driver is missing (apt-get install chromium chromium-driver; Tools/install-deps.sh installs them)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1400,1000"]:
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(driver), options=options)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("blazeface")
    parser.add_argument("--screenshot", help="also save a screenshot of the page after the edits")
    args = parser.parse_args()
    tool = os.path.abspath(args.blazeface)
    work = tempfile.mkdtemp(prefix="review-browser-")
    try:
        clip, masks = f"{work}/clip.mp4", f"{work}/clip.masks.jsonl"
        # Two faces (the fixture), 24 frames, 640x360.
        run("ffmpeg", "-loglevel", "error", "-y", "-loop", "1", "-i", f"{ROOT}/Tests/Fixtures/images/two_faces_1280x853.png",
            "-vf", "scale=640:426,crop=640:360:0:0,format=yuv420p", "-frames:v", "24", "-r", "25", clip)
        run(tool, "redact", clip, f"{work}/first.y4m", "--masks", masks)
        lines = [json.loads(l) for l in open(masks)]
        first_frame = lines[1]["masks"]
        if len(first_frame) < 2:
            fail(f"the clip should have two faces masked, the masks file has {len(first_frame)} on frame 0")
        run(tool, "review", clip, masks, "-o", f"{work}/review.html", "--sample-every", "8")
        page = open(f"{work}/review.html").read()
        if "Content-Security-Policy" not in page or "src=\"http" in page:
            fail("the page is not self-contained")

        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.by import By
        driver = browser()
        try:
            driver.get("file://" + f"{work}/review.html")
            figures = driver.find_elements(By.CSS_SELECTOR, "figure")
            if len(figures) < 3:
                fail(f"expected a moment every 8 frames (3 at least), the page shows {len(figures)}")
            fig = figures[0]
            frame = int(fig.get_attribute("data-frame"))
            shapes = fig.find_elements(By.CSS_SELECTOR, ".mask")
            if len(shapes) != len(lines[frame + 1]["masks"]):
                fail(f"frame {frame}: {len(shapes)} outlines for {len(lines[frame + 1]['masks'])} masks")
            # Remove the first mask's track everywhere.
            removed_id = lines[frame + 1]["masks"][0]["trackingId"]
            shapes[0].click()
            fig.find_element(By.CSS_SELECTOR, ".tools .track").click()
            # Add a box on an empty place of the picture: the lower right, 80x60 picture pixels.
            svg = fig.find_element(By.CSS_SELECTOR, "svg")
            rect = svg.rect
            W, H = lines[0]["width"], lines[0]["height"]
            x0, y0, x1, y1 = 520, 260, 600, 320
            px = lambda x: x / W * rect["width"] - rect["width"] / 2
            py = lambda y: y / H * rect["height"] - rect["height"] / 2
            (ActionChains(driver).move_to_element_with_offset(svg, px(x0), py(y0)).click_and_hold()
             .move_to_element_with_offset(svg, px(x1), py(y1)).release().perform())
            driver.find_element(By.ID, "export").click()
            exported = driver.find_element(By.ID, "exported").get_attribute("value")
            if args.screenshot:
                driver.save_screenshot(args.screenshot)
        finally:
            driver.quit()

        edited = [json.loads(l) for l in exported.splitlines() if l.strip()]
        if len(edited) != len(lines):
            fail(f"the export has {len(edited)} lines, the masks file {len(lines)}")
        added = [m for m in edited[frame + 1]["masks"] if m["reason"] == "added"]
        if len(added) != 1 or any(m["trackingId"] == removed_id for f in edited[1:-1] for m in f["masks"]):
            fail("the export lacks the added box or still has the removed track")
        with open(f"{work}/edited.jsonl", "w") as f:
            f.write(exported)
        run(tool, "redact", clip, f"{work}/edited.y4m", "--apply-masks", f"{work}/edited.jsonl")

        # Where the outputs differ, frame by frame: only inside the removed track's masks and the added box.
        w, h, before = y4m_frames(f"{work}/first.y4m")
        _, _, after = y4m_frames(f"{work}/edited.y4m")
        scale = lines[0]["maskScale"]
        added_box = added[0]["relativeBox"]

        def inside(box, x, y, grow):
            cx, cy = (box[0] + box[2] / 2) * w, (box[1] + box[3] / 2) * h
            return abs(x + 0.5 - cx) <= box[2] * w * grow / 2 + 2 and abs(y + 0.5 - cy) <= box[3] * h * grow / 2 + 2

        for k, (a, b) in enumerate(zip(before, after)):
            removed = [m["relativeBox"] for m in lines[k + 1]["masks"] if m["trackingId"] == removed_id]
            in_removed = in_added = outside = 0
            for y in range(h):
                row = y * w
                for x in range(w):
                    if a[row + x] == b[row + x]:
                        continue
                    if any(inside(r, x, y, scale) for r in removed):
                        in_removed += 1
                    elif inside(added_box, x, y, scale):
                        in_added += 1
                    else:
                        outside += 1
            if outside or not in_removed or not in_added:
                fail(f"frame {k}: {in_removed} pixels changed in the removed masks, {in_added} in the added box, {outside} elsewhere")
        print(f"browser_test: ok: {len(before)} frames; track {removed_id} removed and a box added at frame {frame} "
              f"(carried to every frame) change the output there and nowhere else")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
