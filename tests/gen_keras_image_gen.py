#!/usr/bin/env python3
"""gen_keras_image_gen.py — expected output of tests/programs/keras_image_data_generator.tfs, with numpy.

Follows Keras 2.15's ImageDataGenerator / Iterator / NumpyArrayIterator (keras/preprocessing/image.py) step by step
with numpy's global legacy generator: __getitem__ reseeds with seed + total_batches_seen, the index array is
np.random.permutation when shuffling, get_random_transform draws its uniforms and two random() flips per image,
standardize applies rescale, sample and feature statistics (+1e-6 on the stds), fit takes the per-channel mean/std
over samples, rows and columns; the fit losses are SGD steps of Flatten + Dense(1) under mse, weighted by batch size.
usage: gen_keras_image_gen.py > tests/programs/keras_image_data_generator.out
"""
import numpy as np

F = np.float32
x = np.arange(5 * 2 * 3 * 1, dtype=F).reshape((5, 2, 3, 1))
y = np.array([0, 1, 0, 1, 1])


def show(a):
    return np.round(np.asarray(a, dtype="float64"), 4).tolist()


class Gen:
    def __init__(self, rescale=None, hflip=False, vflip=False, fc=False, fs=False, sc=False, ss=False, shift=0.0, vs=0.0):
        self.rescale, self.hflip, self.vflip = rescale, hflip, vflip
        self.fc, self.fs, self.sc, self.ss, self.shift = fc or fs, fs, sc or ss, ss, shift
        self.mean = self.std = None
        self.vs = vs

    def rt(self, shape, seed=None):
        if seed is not None:
            np.random.seed(seed)
        fh = (np.random.random() < 0.5) * self.hflip
        fv = (np.random.random() < 0.5) * self.vflip
        cs = np.random.uniform(-self.shift, self.shift) if self.shift else None
        return fh, fv, cs

    def apply(self, img, p):
        fh, fv, cs = p
        if cs is not None:
            c = np.moveaxis(img, 2, 0)
            lo, hi = c.min(), c.max()
            img = np.moveaxis(np.stack([np.clip(ch + cs, lo, hi) for ch in c]), 0, 2)
        if fh:
            img = np.flip(img, 1)
        if fv:
            img = np.flip(img, 0)
        return img

    def std_(self, v):
        if self.rescale:
            v *= self.rescale
        if self.sc:
            v -= np.mean(v, keepdims=True)
        if self.ss:
            v /= np.std(v, keepdims=True) + 1e-6
        if self.fc and self.mean is not None:
            v -= self.mean
        if self.fs and self.std is not None:
            v /= self.std + 1e-6
        return v

    def fit(self, a):
        a = np.copy(np.asarray(a, F))
        if self.fc:
            self.mean = np.reshape(np.mean(a, axis=(0, 1, 2)), [1, 1, 1])
            a -= self.mean
        if self.fs:
            self.std = np.reshape(np.std(a, axis=(0, 1, 2)), [1, 1, 1])


class It:
    def __init__(self, gen, xs, ys, bs, shuffle, seed=None, w=None):
        self.g, self.x, self.y, self.bs, self.shuffle, self.seed, self.w = gen, np.asarray(xs, F), ys, bs, shuffle, seed, w
        self.n = len(xs)
        self.total = 0
        self.batch_index = 0
        self.index_array = None

    def set_index(self):
        self.index_array = np.random.permutation(self.n) if self.shuffle else np.arange(self.n)

    def __len__(self):
        return (self.n + self.bs - 1) // self.bs

    def batch(self, idx_array):
        bx = np.zeros((len(idx_array),) + self.x.shape[1:], F)
        for i, j in enumerate(idx_array):
            v = self.x[j]
            v = self.g.apply(v.astype(F), self.g.rt(v.shape))
            bx[i] = self.g.std_(v)
        if self.y is None:
            return bx
        if self.w is not None:
            return bx, self.y[idx_array], self.w[idx_array]
        return bx, self.y[idx_array]

    def __getitem__(self, idx):
        if self.seed is not None:
            np.random.seed(self.seed + self.total)
        self.total += 1
        if self.index_array is None:
            self.set_index()
        return self.batch(self.index_array[self.bs * idx:self.bs * (idx + 1)])

    def next(self):
        if self.seed is not None:
            np.random.seed(self.seed + self.total)
        if self.batch_index == 0:
            self.set_index()
        cur = (self.batch_index * self.bs) % self.n
        self.batch_index = self.batch_index + 1 if self.n > cur + self.bs else 0
        self.total += 1
        return self.batch(self.index_array[cur:cur + self.bs])


it = It(Gen(rescale=0.5), x, y, 2, False)
print(3, True, True)
bx, by = it[2]
print(bx.shape, "float32", show(bx[0, :, :, 0]), by.tolist())
flip = It(Gen(hflip=True, vflip=True), x, y, 5, False, seed=7)
bx, by = flip[0]
print([show(bx[i, :, :, 0]) for i in range(5)])
bx2, _ = flip[0]
print(show(bx2[0, :, :, 0]) == show(bx[0, :, :, 0]), flip.total)
sh = It(Gen(), x, y, 2, True, seed=3)
print([sh[i][1].tolist() for i in range(3)])
sh.set_index()
print(sh.index_array.tolist())
nx = sh.next()
print(nx[0].shape, sh.batch_index, sh.total)
g = Gen(fc=True, fs=True)
print(True, None)
g.fit(x)
print(show(g.mean), show(g.std), g.mean.shape)
bx = It(g, x, None, 5, False)[0]
print(show(bx[1, :, :, 0]))
s = Gen(ss=True, rescale=1.0 / 10)
print(True, show(It(s, x, None, 5, False)[0][3, :, :, 0]))
cg = Gen(shift=2.0)
print(show(cg.apply(x[1], cg.rt(x[1].shape, seed=1))[:, :, 0]))
np.random.seed(0)
fh = (np.random.random() < 0.5) * True
np.random.random()
print(sorted({"theta": 0, "tx": 0, "ty": 0, "shear": 0, "zx": 1, "zy": 1, "flip_horizontal": fh, "flip_vertical": 0,
              "channel_shift_intensity": None, "brightness": None}.items()))
w = np.array([1.0, 2.0, 1.0, 0.5, 1.0])
bx, by, bw = It(Gen(), x, y, 3, False, w=w)[1]
print(bx.shape, by.tolist(), bw.tolist())
print(2, [0, 1])
k = np.zeros((6, 1), F)
b = np.zeros((1,), F)
xs = (x / F(30)).reshape(5, 6).astype(F)
ys = y.astype(F).reshape(5, 1)
hist = []
for _ in range(2):
    tot = 0.0
    for i in range(3):
        xb, yb = xs[2 * i:2 * i + 2], ys[2 * i:2 * i + 2]
        e = xb @ k + b - yb
        tot += float(np.mean(e * e)) * len(xb)
        gr = 2 * e / len(xb)
        k = (k - F(0.01) * (xb.T @ gr)).astype(F)
        b = (b - F(0.01) * gr.sum(0)).astype(F)
    hist.append(round(tot / 5, 5))
print(hist)
print('ValueError: `data_format` should be `"channels_last"` (channel after row and column) or `"channels_first"` (channel before row and column). Received: nhwc')
print("ValueError: `validation_split` must be strictly between 0 and 1.  Received: 1.5")
print("ValueError: `zoom_range` should be a float or a tuple or list of two floats. Received: [1, 2, 3]")
print("ValueError: `brightness_range should be tuple or list of two floats. Received: 0.5")
print("ValueError: ('Input data in `NumpyArrayIterator` should have rank 4. You passed an array with shape', (5, 2, 3))")
print("ValueError: `x` (images tensor) and `y` (labels) should have the same length. Found: x.shape = (5, 2, 3, 1), y.shape = (3,)")
print("ValueError: Input to `.fit()` should have rank 4. Got array with shape: (2, 3, 1)")
print("ValueError: Asked to retrieve element 3, but the Sequence has length 3")
print("NotImplementedError: tfs: ImageDataGenerator's rotation, shift, shear and zoom (scipy.ndimage.affine_transform in Keras) are not implemented")
print("""ValueError: ('Invalid subset name:', 'test', '; expected "training" or "validation".')""")
