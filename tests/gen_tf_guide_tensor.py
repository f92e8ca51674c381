# gen_tf_guide_tensor.py — numpy's values for the computed (not copied) numbers of examples/tf_guides/tensor.out.
import numpy as np

import torch

# torch's float32 softmax rounds as TF's (numpy's float32 exp gives 2.6894140e-01 for [0, 0], one ulp below)
print("softmax:", torch.softmax(torch.tensor([[4.0, 5.0], [10.0, 1.0]]), dim=1).numpy())
print("u8:", np.array([2.2, 3.3, 4.4]).astype(np.float16).astype(np.uint8))
print("codepoints:", [ord(ch) for ch in "アヒル 🦆"])
print("utf-8:", "🥳👍".encode(), "Duck:", list(b"Duck"))
