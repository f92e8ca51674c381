tf\.Tensor\(\[0\ 1\],\ shape=\(2,\),\ dtype=int32\)
Input\ Parameters:
\ \ n\ \(POSITIONAL_OR_KEYWORD\):\ TensorSpec\(shape=\(\),\ dtype=tf\.int32,\ name=None\)
Output\ Type:
\ \ TensorSpec\(shape=\(None,\),\ dtype=tf\.int32,\ name=None\)
Captures:
  \d+: TensorSpec\(shape=\(0,\),\ dtype=tf\.int32,\ name=None\)
\{'a':\ <tf\.Tensor:\ shape=\(\),\ dtype=int32,\ numpy=2>,\ 'b':\ \[<tf\.Tensor:\ shape=\(\),\ dtype=int32,\ numpy=2>,\ <tf\.Tensor:\ shape=\(\),\ dtype=int32,\ numpy=4>\],\ 'r':\ <tf\.Tensor:\ shape=\(2,\),\ dtype=int32,\ numpy=array\(\[0,\ 1\],\ dtype=int32\)>\}
\(<tf\.Tensor:\ shape=\(3,\),\ dtype=int32,\ numpy=array\(\[0,\ 1,\ 2\],\ dtype=int32\)>,\ \[<tf\.Tensor:\ shape=\(\),\ dtype=int32,\ numpy=3>,\ <tf\.Tensor:\ shape=\(\),\ dtype=float32,\ numpy=1\.5>\]\)
