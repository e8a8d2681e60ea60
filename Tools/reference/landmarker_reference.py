"""What check_landmarks_agreement.py and check_analyze_agreement.py share: the seeded images
(check_agreement.py's recipes, image i from numpy.random.default_rng([seed, i]) alone, written as
PNG) and MediaPipe 0.10.14's Tasks FaceLandmarker on them (IMAGE mode, num_faces 4, blendshapes
on, the official face_landmarker.task)."""
import os

import numpy as np
from PIL import Image

import check_agreement  # the image recipes

import mediapipe as mp
from mediapipe.tasks.python import BaseOptions, vision


def seeded_images(seed, count, out):
    """Writes images 0..<count of the seeded recipes to `out`; returns their paths and recipes."""
    os.makedirs(out, exist_ok=True)
    paths, recipes = [], []
    for i in range(count):
        img, recipe, _ = check_agreement.make_image(seed, i)
        path = os.path.join(out, "%04d_%s.png" % (i, recipe))
        img.save(path)
        paths.append(path)
        recipes.append(recipe)
    return paths, recipes


def tasks_face_landmarker(bundle, paths, matrices=False):
    """Per image, per face: (478x3 landmarks, 52 blendshape scores[, 4x4 matrix]) as float32."""
    options = vision.FaceLandmarkerOptions(
        base_options=BaseOptions(model_asset_path=bundle), running_mode=vision.RunningMode.IMAGE,
        num_faces=4, output_face_blendshapes=True, output_facial_transformation_matrixes=matrices)
    results = []
    with vision.FaceLandmarker.create_from_options(options) as landmarker:
        for path in paths:
            rgb = np.ascontiguousarray(np.asarray(Image.open(path).convert("RGB"), np.uint8))
            r = landmarker.detect(mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb))
            faces = []
            for k, (lms, bs) in enumerate(zip(r.face_landmarks, r.face_blendshapes)):
                face = (np.array([[p.x, p.y, p.z] for p in lms], np.float32), np.array([c.score for c in bs], np.float32))
                if matrices:
                    face += (np.asarray(r.facial_transformation_matrixes[k], np.float32).reshape(4, 4),)
                faces.append(face)
            results.append(faces)
    return results
