tf\.Tensor\(3\.0,\ shape=\(\),\ dtype=float32\)\ tf\.Tensor\(1\.0,\ shape=\(\),\ dtype=float32\)\ tf\.Tensor\(2,\ shape=\(\),\ dtype=int32\)\ None
tf\.Tensor\(9\.0,\ shape=\(\),\ dtype=float32\)
tf\.Tensor\(15\.0,\ shape=\(\),\ dtype=float32\)\ tf\.Tensor\(3,\ shape=\(\),\ dtype=int32\)
3
Input\ Parameters:
\ \ xs\ \(POSITIONAL_OR_KEYWORD\):\ List\[TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\),\ TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\)\]
\ \ scale\ \(POSITIONAL_OR_KEYWORD\):\ Literal\[1\.0\]
Output\ Type:
\ \ Dict\[\['sum',\ TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\)\],\ \['parts',\ Tuple\[TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\),\ TensorSpec\(shape=\(\),\ dtype=tf\.int32,\ name=None\)\]\],\ \['none',\ Literal\[None\]\]\]
Captures:
  \d+: TensorSpec\(shape=\(\),\ dtype=tf\.int32,\ name=None\)

Input\ Parameters:
\ \ xs\ \(POSITIONAL_OR_KEYWORD\):\ List\[TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\),\ TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\)\]
\ \ scale\ \(POSITIONAL_OR_KEYWORD\):\ Literal\[3\.0\]
Output\ Type:
\ \ Dict\[\['sum',\ TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\)\],\ \['parts',\ Tuple\[TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\),\ TensorSpec\(shape=\(\),\ dtype=tf\.int32,\ name=None\)\]\],\ \['none',\ Literal\[None\]\]\]
Captures:
  \d+: TensorSpec\(shape=\(\),\ dtype=tf\.int32,\ name=None\)

Input\ Parameters:
\ \ xs\ \(POSITIONAL_OR_KEYWORD\):\ List\[TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\),\ TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\),\ TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\)\]
\ \ scale\ \(POSITIONAL_OR_KEYWORD\):\ Literal\[1\.0\]
Output\ Type:
\ \ Dict\[\['sum',\ TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\)\],\ \['parts',\ Tuple\[TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\),\ TensorSpec\(shape=\(\),\ dtype=tf\.int32,\ name=None\)\]\],\ \['none',\ Literal\[None\]\]\]
Captures:
  \d+: TensorSpec\(shape=\(\),\ dtype=tf\.int32,\ name=None\)
tf\.Tensor\(8,\ shape=\(\),\ dtype=int32\)
x\ =\ Placeholder\(\)\ \->\ int32\ \(\)
OnesLike\ =\ OnesLike\(x\)\ \->\ int32\ \(\)\ dtype=None
mul\ =\ Mul\(x,\ OnesLike\)\ \->\ int32\ \(\)
mul_1\ =\ Mul\(x,\ mul\)\ \->\ int32\ \(\)
mul_2\ =\ Mul\(x,\ mul_1\)\ \->\ int32\ \(\)
return\ mul_2

tf\.Tensor\(28,\ shape=\(\),\ dtype=int32\)
1\ 1
