#!/usr/bin/env python3
"""Stage-by-stage goldens for the face landmark and blendshape networks, from MediaPipe 0.10.14.

For each fixture below (Tests/Fixtures/images/<stem>.png) this writes
Tests/Fixtures/goldens/face_landmarker/:

  <stem>.stages.json          per face, in the order MediaPipe returns them:
      "roi"          the NormalizedRect the landmark network was run on (the face detector
                     graph's EXPANDED_FACE_RECTS, after ClipNormalizedRectVectorSize),
      "rawLandmarks" the network's 1434 landmark outputs (Identity, 478 x (x, y, z) in
                     256x256 crop pixels),
      "presenceLogit" its face-presence output (Identity_1, before the sigmoid),
      "presenceScore" MediaPipe's PRESENCE_SCORE (sigmoid of it),
      "landmarks"    the 478 projected NormalizedLandmarks [x, y, z],
      "blendshapes"  the 52 blendshape scores [name, score] in MediaPipe's order,
      "crop"         file name of the crop PNG and the float range it maps to;
    plus the image size, the options, and whether the Tasks FaceLandmarker (num_faces 4) gave
    exactly these landmarks and blendshapes on the same pixels (checked, see below).
  <stem>.stages.face<i>.crop.png   the 256x256 landmark-network input, stored as the 8-bit
      levels it was made from: MediaPipe's float tensor equals level * scale + offset for
      every value (checked here before writing, so the PNG is lossless).

The graph is MediaPipe's own Tasks subgraphs wired as FaceLandmarkerGraph wires them in image
mode (face_landmarker_graph.cc): FaceDetectorGraph -> ClipNormalizedRectVectorSizeCalculator
-> MultiFaceLandmarksDetectorGraph (with the blendshapes graph). The crop and raw outputs come
from a second graph run per ROI with the options ImagePreprocessingGraph gives the landmark
model (ImageToTensorCalculator 256x256, float range from the model metadata, no
keep_aspect_ratio, the default border mode) and an InferenceCalculator with XNNPACK; the
script checks that its presence score equals the first graph's, and that the first graph's
landmarks and blendshapes equal the Tasks FaceLandmarker's.

It also writes <VIDEO_FIXTURE>.video.json: the Tasks FaceLandmarker in VIDEO mode (num_faces 2,
so MediaPipe applies no landmark smoothing) on the same photo given as two frames (0 and 33
ms): frame 0 runs the detector, frame 1 tracks both faces from frame 0's landmarks (the
detector is skipped once num_faces faces are tracked).

Usage (the bundle is not committed; see Weights/README.md for where it comes from):
  /root/mpenv/bin/python Tools/reference/make_goldens_landmarks.py /path/to/face_landmarker.task
"""

import hashlib
import json
import math
import os
import sys
import tempfile
import zipfile

import numpy as np
from PIL import Image

import mediapipe as mp
from mediapipe.framework.formats import rect_pb2
from mediapipe.tasks.python import BaseOptions
from mediapipe.tasks.python import vision

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
IMAGES = os.path.join(REPO, "Tests", "Fixtures", "images")
OUT = os.path.join(REPO, "Tests", "Fixtures", "goldens", "face_landmarker")
BUNDLE_SHA256 = "64184e229b263107bc2b804c6625db1341ff2bb731874b0bcc2fe6544e0bc9ff"
FIXTURES = ["astronaut", "face_off_edge_320x240", "two_faces_1280x853", "multi_face", "no_face_coffee"]
NUM_FACES = 4
MIN_CONFIDENCE = 0.5

LANDMARKER_GRAPH = """
input_stream: "image"
output_stream: "rects"
output_stream: "landmarks"
output_stream: "blendshapes"
output_stream: "presence_scores"
node {
  calculator: "ToImageCalculator"
  input_stream: "IMAGE:image"
  output_stream: "IMAGE:img"
}
node {
  calculator: "mediapipe.tasks.vision.face_detector.FaceDetectorGraph"
  input_stream: "IMAGE:img"
  output_stream: "EXPANDED_FACE_RECTS:expanded_rects"
  options {
    [mediapipe.tasks.vision.face_detector.proto.FaceDetectorGraphOptions.ext] {
      base_options { model_asset { file_name: "%(detector)s" } }
      min_detection_confidence: %(conf)r
      num_faces: %(faces)d
    }
  }
}
node {
  calculator: "ClipNormalizedRectVectorSizeCalculator"
  input_stream: "expanded_rects"
  output_stream: "rects"
  options { [mediapipe.ClipVectorSizeCalculatorOptions.ext] { max_vec_size: %(faces)d } }
}
node {
  calculator: "mediapipe.tasks.vision.face_landmarker.MultiFaceLandmarksDetectorGraph"
  input_stream: "IMAGE:img"
  input_stream: "NORM_RECT:rects"
  output_stream: "NORM_LANDMARKS:landmarks"
  output_stream: "BLENDSHAPES:blendshapes"
  output_stream: "PRESENCE_SCORE:presence_scores"
  options {
    [mediapipe.tasks.vision.face_landmarker.proto.FaceLandmarksDetectorGraphOptions.ext] {
      base_options { model_asset { file_name: "%(landmarks)s" } }
      min_detection_confidence: %(conf)r
      face_blendshapes_graph_options {
        base_options { model_asset { file_name: "%(blendshapes)s" } acceleration { xnnpack {} } }
      }
    }
  }
}
"""

STAGE_GRAPH = """
input_stream: "image"
input_stream: "roi"
output_stream: "input_floats"
output_stream: "out0_floats"
output_stream: "out1_floats"
output_stream: "out2_floats"
node {
  calculator: "ToImageCalculator"
  input_stream: "IMAGE:image"
  output_stream: "IMAGE:img"
}
node {
  calculator: "ImageToTensorCalculator"
  input_stream: "IMAGE:img"
  input_stream: "NORM_RECT:roi"
  output_stream: "TENSORS:input_tensors"
  options {
    [mediapipe.ImageToTensorCalculatorOptions.ext] {
      output_tensor_width: 256
      output_tensor_height: 256
      output_tensor_float_range { min: %(lo)r max: %(hi)r }
      gpu_origin: TOP_LEFT
    }
  }
}
node {
  calculator: "TensorsToFloatsCalculator"
  input_stream: "TENSORS:input_tensors"
  output_stream: "FLOATS:input_floats"
}
node {
  calculator: "InferenceCalculator"
  input_stream: "TENSORS:input_tensors"
  output_stream: "TENSORS:out"
  options {
    [mediapipe.InferenceCalculatorOptions.ext] {
      model_path: "%(model)s"
      delegate { xnnpack {} }
    }
  }
}
node {
  calculator: "SplitTensorVectorCalculator"
  input_stream: "out"
  output_stream: "out0"
  output_stream: "out1"
  output_stream: "out2"
  options {
    [mediapipe.SplitVectorCalculatorOptions.ext] {
      ranges { begin: 0 end: 1 }
      ranges { begin: 1 end: 2 }
      ranges { begin: 2 end: 3 }
    }
  }
}
node { calculator: "TensorsToFloatsCalculator" input_stream: "TENSORS:out0" output_stream: "FLOATS:out0_floats" }
node { calculator: "TensorsToFloatsCalculator" input_stream: "TENSORS:out1" output_stream: "FLOATS:out1_floats" }
node { calculator: "TensorsToFloatsCalculator" input_stream: "TENSORS:out2" output_stream: "FLOATS:out2_floats" }
"""

# The landmark model's metadata normalization: mean 0, std 255 (checked against the tensor below).
FLOAT_RANGE = (0.0, 1.0)


def load_rgb(path):
    with Image.open(path) as im:
        return np.ascontiguousarray(np.asarray(im.convert("RGB"), np.uint8))


def image_packet(rgb):
    return mp.packet_creator.create_image_frame(image_format=mp.ImageFormat.SRGB, data=rgb)


def run_landmarker_graph(rgb, files):
    graph = mp.CalculatorGraph(graph_config=LANDMARKER_GRAPH % {
        "detector": files["face_detector.tflite"], "landmarks": files["face_landmarks_detector.tflite"],
        "blendshapes": files["face_blendshapes.tflite"], "conf": MIN_CONFIDENCE, "faces": NUM_FACES})
    out = {}

    def grab(name, packet):
        if name == "presence_scores":
            out[name] = list(mp.packet_getter.get_float_list(packet))
        else:
            out[name] = mp.packet_getter.get_proto_list(packet)
    for s in ("rects", "landmarks", "blendshapes", "presence_scores"):
        graph.observe_output_stream(s, grab)
    graph.start_run()
    graph.add_packet_to_input_stream("image", image_packet(rgb).at(0))
    graph.close()
    return out


def run_stage_graph(rgb, roi, model):
    graph = mp.CalculatorGraph(graph_config=STAGE_GRAPH % {"model": model, "lo": FLOAT_RANGE[0], "hi": FLOAT_RANGE[1]})
    out = {}
    for s in ("input_floats", "out0_floats", "out1_floats", "out2_floats"):
        graph.observe_output_stream(s, lambda name, p: out.__setitem__(name, np.array(mp.packet_getter.get_float_list(p), np.float32)))
    graph.start_run()
    graph.add_packet_to_input_stream("image", image_packet(rgb).at(0))
    graph.add_packet_to_input_stream("roi", mp.packet_creator.create_proto(roi).at(0))
    graph.close()
    return out


def tasks_landmarker(rgb, bundle):
    options = vision.FaceLandmarkerOptions(
        base_options=BaseOptions(model_asset_path=bundle), running_mode=vision.RunningMode.IMAGE,
        num_faces=NUM_FACES, min_face_detection_confidence=MIN_CONFIDENCE,
        min_face_presence_confidence=MIN_CONFIDENCE, output_face_blendshapes=True)
    with vision.FaceLandmarker.create_from_options(options) as landmarker:
        r = landmarker.detect(mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb))
    return ([[[p.x, p.y, p.z] for p in face] for face in r.face_landmarks],
            [[[c.category_name, c.score] for c in face] for face in r.face_blendshapes])


VIDEO_FIXTURE = "two_faces_1280x853"
VIDEO_FACES = 2


def tasks_video(rgb, bundle, timestamps):
    options = vision.FaceLandmarkerOptions(
        base_options=BaseOptions(model_asset_path=bundle), running_mode=vision.RunningMode.VIDEO,
        num_faces=VIDEO_FACES, min_face_detection_confidence=MIN_CONFIDENCE,
        min_face_presence_confidence=MIN_CONFIDENCE, min_tracking_confidence=MIN_CONFIDENCE)
    frames = []
    with vision.FaceLandmarker.create_from_options(options) as landmarker:
        for t in timestamps:
            r = landmarker.detect_for_video(mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb), t)
            frames.append({"timestampMs": t, "landmarks": [[[p.x, p.y, p.z] for p in face] for face in r.face_landmarks]})
    return frames


def crop_levels(floats, scale, offset):
    """The 8-bit levels behind a float tensor, asserting every value is level * scale + offset
    exactly (float32 fma, as the calculator's convertTo computes it)."""
    levels = np.rint((floats - offset) / scale).astype(np.int64)
    assert levels.min() >= 0 and levels.max() <= 255
    # In double, level * scale + offset is exact here, so one rounding to float32 is the fma.
    rebuilt = np.array([np.float32(np.float64(l) * np.float64(scale) + np.float64(offset)) for l in range(256)],
                       np.float32)[levels]
    assert np.array_equal(rebuilt, floats), "crop floats are not level * scale + offset"
    return levels.astype(np.uint8)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    bundle = sys.argv[1]
    with open(bundle, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    assert digest == BUNDLE_SHA256, digest
    os.makedirs(OUT, exist_ok=True)
    tmp = tempfile.mkdtemp()
    with zipfile.ZipFile(bundle) as z:
        z.extractall(tmp)
    files = {n: os.path.join(tmp, n) for n in os.listdir(tmp)}
    scale = np.float32((FLOAT_RANGE[1] - FLOAT_RANGE[0]) / 255.0)
    offset = np.float32(FLOAT_RANGE[0])

    for stem in FIXTURES:
        rgb = load_rgb(os.path.join(IMAGES, stem + ".png"))
        h, w = rgb.shape[:2]
        g = run_landmarker_graph(rgb, files)
        tasks_landmarks, tasks_blendshapes = tasks_landmarker(rgb, bundle)
        rects = g.get("rects", [])
        faces = []
        landmark_lists = g.get("landmarks", [])
        blendshape_lists = g.get("blendshapes", [])
        presence = g.get("presence_scores", [])
        for i, rect in enumerate(rects):
            stage = run_stage_graph(rgb, rect, files["face_landmarks_detector.tflite"])
            raw_landmarks = stage["out0_floats"]
            assert raw_landmarks.size == 1434, raw_landmarks.size
            logit = float(stage["out1_floats"][0])
            levels = crop_levels(stage["input_floats"], scale, offset).reshape(256, 256, 3)
            crop_name = "%s.stages.face%d.crop.png" % (stem, i)
            Image.fromarray(levels, "RGB").save(os.path.join(OUT, crop_name), optimize=True)
            face = {
                "roi": {"xCenter": rect.x_center, "yCenter": rect.y_center, "width": rect.width,
                        "height": rect.height, "rotation": rect.rotation},
                "crop": {"file": crop_name, "scale": float(scale), "offset": float(offset)},
                "rawLandmarks": [float(v) for v in raw_landmarks],
                "presenceLogit": logit,
                "presenceScore": float(presence[i]) if i < len(presence) else None,
                "thirdOutput": [float(v) for v in stage["out2_floats"]],
            }
            faces.append(face)
        # Faces whose presence passed the threshold come out with landmarks, in ROI order.
        kept = [i for i, f in enumerate(faces) if f["presenceScore"] is not None and f["presenceScore"] >= MIN_CONFIDENCE]
        assert len(kept) == len(landmark_lists), (kept, len(landmark_lists))
        for k, i in enumerate(kept):
            faces[i]["landmarks"] = [[p.x, p.y, p.z] for p in landmark_lists[k].landmark]
            faces[i]["blendshapes"] = [[c.label, c.score] for c in blendshape_lists[k].classification]
        graph_landmarks = [faces[i]["landmarks"] for i in kept]
        graph_blendshapes = [faces[i]["blendshapes"] for i in kept]
        same_as_tasks = (graph_landmarks == tasks_landmarks and
                         [[s for _, s in f] for f in graph_blendshapes] == [[s for _, s in f] for f in tasks_blendshapes])
        doc = {
            "image": stem + ".png", "width": w, "height": h,
            "options": {"numFaces": NUM_FACES, "minFaceDetectionConfidence": MIN_CONFIDENCE,
                        "minFacePresenceConfidence": MIN_CONFIDENCE},
            "mediapipe": mp.__version__, "bundleSHA256": BUNDLE_SHA256,
            "graphEqualsTasksFaceLandmarker": same_as_tasks,
            "faces": faces,
        }
        with open(os.path.join(OUT, stem + ".stages.json"), "w") as f:
            json.dump(doc, f, separators=(",", ":"))
        print(stem, w, h, "rois", len(rects), "faces", len(kept), "tasks", len(tasks_landmarks),
              "same as Tasks:", same_as_tasks)
    write_video(bundle)


def write_video(bundle):
    rgb = load_rgb(os.path.join(IMAGES, VIDEO_FIXTURE + ".png"))
    frames = tasks_video(rgb, bundle, [0, 33])
    doc = {"image": VIDEO_FIXTURE + ".png", "mediapipe": mp.__version__, "bundleSHA256": BUNDLE_SHA256,
           "options": {"runningMode": "video", "numFaces": VIDEO_FACES, "minFaceDetectionConfidence": MIN_CONFIDENCE,
                       "minFacePresenceConfidence": MIN_CONFIDENCE, "minTrackingConfidence": MIN_CONFIDENCE},
           "frames": frames}
    with open(os.path.join(OUT, VIDEO_FIXTURE + ".video.json"), "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    print("video", VIDEO_FIXTURE, [len(f["landmarks"]) for f in frames])


if __name__ == "__main__":
    main()
