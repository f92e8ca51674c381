#!/usr/bin/env python3
"""gen_keras_image_dir.py — expected output of tests/programs/keras_image_flow_directory.tfs.

Keras 2.15's DirectoryIterator indexes a directory as the program lays it out: classes are the sorted subdirectory
names (cats, dogs), files are walked root by root in sorted order, keeping names ending in png/jpg/jpeg/bmp/ppm/tif/
tiff, a validation subset takes files [0, split * n) of each class and training the rest, labels are float
(binary/sparse) or one-hot rows; the pixel values are the ones the program writes (a grayscale pixel of equal R, G, B
keeps its value). The one fit step's loss is the softmax crossentropy of zero logits, log(2).
usage: gen_keras_image_dir.py > tests/programs/keras_image_flow_directory.out
"""
import math

files = {"cats": ["cats/im0.png", "cats/im1.png", "cats/sub/im2.png"], "dogs": ["dogs/im0.png", "dogs/im1.png"]}
vals = {"cats": [30, 40, 50], "dogs": [10, 20]}
print("Found 5 images belonging to 2 classes.")
names = files["cats"] + files["dogs"]
print({"cats": 0, "dogs": 1}, names, [0, 0, 0, 1, 1], 3, (2, 3, 3))
print((2, 2, 3, 3), "float32", [30.0, 40.0], [0.0, 1.0], [[1.0, 0.0], [1.0, 0.0]])
print((1, 2, 3, 3), [20.0], [[0.0, 1.0]])
print("Found 5 images belonging to 2 classes.")
print("sparse", "float32", [0.0, 0.0, 0.0, 1.0, 1.0])
print("Found 5 images belonging to 2 classes.")
print("binary", "float32", [0.0, 0.0, 0.0, 1.0, 1.0])
print("Found 5 images belonging to 2 classes.")
print((1, 2, 3, 3), (1, 2, 3, 3), 30.0)
print("Found 5 images belonging to 2 classes.")
print("ndarray", (5, 2, 3, 3))
print("Found 5 images belonging to 2 classes.")
print((5, 2, 3, 1), [30.0, 40.0, 50.0, 10.0, 20.0])
print("Found 2 images belonging to 1 classes.")
print({"dogs": 0}, files["dogs"], [[1.0], [1.0]])
print("Found 2 images belonging to 2 classes.")
print("Found 3 images belonging to 2 classes.")
print(["cats/im0.png", "dogs/im0.png"], ["cats/im1.png", "cats/sub/im2.png", "dogs/im1.png"], [0.0, 0.0, 1.0])
print("Found 5 images belonging to 2 classes.")
print(round(math.log(2.0), 5))
print("""ValueError: ('Invalid color mode:', 'hsv', '; expected "rgb", "rgba", or "grayscale".')""")
print('ValueError: Invalid subset name: test;expected "training" or "validation"')
