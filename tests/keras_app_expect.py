# keras_app_expect.py — what the keras.applications generators (tests/gen_keras_app_*.py) share: Python's printing of shapes and name lists, Keras 2.15's argument-error texts, writing the .out file.
import os

HERE = os.path.dirname(os.path.abspath(__file__))
WEIGHTS = ("ValueError: The `weights` argument should be either `None` (random initialization), `imagenet` "
           "(pre-training on ImageNet), or the path to the weights file to be loaded")
CLASSES = "ValueError: If using `weights` as `\"imagenet\"` with `include_top` as true, `classes` should be 1000"


def shape(s):
    # a tuple as Python prints it (None for an unknown dimension)
    return "(" + ", ".join("None" if d is None else str(d) for d in s) + ("," if len(s) == 1 else "") + ")"


def names(items):
    return "[" + ", ".join(f"'{x}'" for x in items) + "]"


def too_small(min_size, size):
    # imagenet_utils.obtain_input_shape's minimum-size check
    return f"ValueError: Input size must be at least {min_size}x{min_size}; Received: input_shape={shape(size)}"


def not_default(default, size):
    # obtain_input_shape: the ImageNet classifier takes only the default size
    return (f"ValueError: When setting `include_top=True` and loading `imagenet` weights, `input_shape` should be "
            f"{shape(default)}.  Received: input_shape={shape(size)}")


def missing_file(fname, url):
    # tfs's get_file never downloads: the cached path it looked for (stdlib/modules/kdatasets.c)
    return f"OSError: get_file: $KERAS_HOME/models/{fname} not found (tfs never downloads {url}; put the file there)"


def write(program, lines):
    with open(os.path.join(HERE, "programs", program + ".out"), "w") as f:
        f.write("\n".join(lines) + "\n")
