tf\.Tensor\(1,\ shape=\(\),\ dtype=int32\)
tf\.Tensor\(2\.5,\ shape=\(\),\ dtype=float32\)
tf\.Tensor\(True,\ shape=\(\),\ dtype=bool\)
tf\.Tensor\(b'hi',\ shape=\(\),\ dtype=string\)
None
\[<tf\.Tensor:\ shape=\(\),\ dtype=int32,\ numpy=1>,\ \(<tf\.Tensor:\ shape=\(\),\ dtype=float32,\ numpy=2\.0>,\ <tf\.Tensor:\ shape=\(\),\ dtype=bool,\ numpy=False>\),\ None,\ \{'k':\ <tf\.Tensor:\ shape=\(\),\ dtype=string,\ numpy=b'v'>\}\]
tf\.Tensor\(3,\ shape=\(\),\ dtype=int32\)
\(<tf\.Tensor:\ shape=\(\),\ dtype=int32,\ numpy=2>,\ <tf\.Tensor:\ shape=\(\),\ dtype=int32,\ numpy=10>\)
Input\ Parameters:
\ \ x\ \(POSITIONAL_OR_KEYWORD\):\ TensorSpec\(shape=\(\),\ dtype=tf\.int32,\ name=None\)
Output\ Type:
\ \ Tuple\[TensorSpec\(shape=\(\),\ dtype=tf\.int32,\ name=None\),\ TensorSpec\(shape=\(\),\ dtype=tf\.int32,\ name=None\)\]
Captures:
  \d+: TensorSpec\(shape=\(\),\ dtype=tf\.int32,\ name=None\)
