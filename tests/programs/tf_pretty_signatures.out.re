tf\.Tensor\(5\.5,\ shape=\(\),\ dtype=float32\)
tf\.Tensor\(\[1\.\ 0\.\],\ shape=\(2,\),\ dtype=float32\)
tf\.Tensor\(\[3\.\ 0\.\],\ shape=\(2,\),\ dtype=float32\)
Input\ Parameters:
\ \ x\ \(POSITIONAL_OR_KEYWORD\):\ TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\)
Output\ Type:
\ \ TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\)
Captures:
\ \ None

Input\ Parameters:
\ \ x\ \(POSITIONAL_OR_KEYWORD\):\ List\[Literal\[1\],\ Literal\[\-1\]\]
Output\ Type:
\ \ TensorSpec\(shape=\(2,\),\ dtype=tf\.float32,\ name=None\)
Captures:
\ \ None

Input\ Parameters:
\ \ x\ \(POSITIONAL_OR_KEYWORD\):\ TensorSpec\(shape=\(2,\),\ dtype=tf\.float32,\ name=None\)
Output\ Type:
\ \ TensorSpec\(shape=\(2,\),\ dtype=tf\.float32,\ name=None\)
Captures:
\ \ None
Input\ Parameters:
\ \ xs\ \(POSITIONAL_OR_KEYWORD\):\ List\[TensorSpec\(shape=\(None,\),\ dtype=tf\.float32,\ name=None\),\ TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\)\]
\ \ scale\ \(POSITIONAL_OR_KEYWORD\):\ Literal\[1\.0\]
\ \ keep\ \(KEYWORD_ONLY\):\ Literal\[False\]
Output\ Type:
\ \ Tuple\[Tuple\[TensorSpec\(shape=\(None,\),\ dtype=tf\.float32,\ name=None\),\ Dict\[\['sum',\ TensorSpec\(shape=\(None,\),\ dtype=tf\.float32,\ name=None\)\]\]\],\ Literal\[None\]\]
Captures:
\ \ None
\(xs:\ List\[TensorSpec\(shape=\(None,\),\ dtype=tf\.float32,\ name=None\),\ TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\)\],\ scale:\ Literal\[1\.0\],\ \*,\ keep:\ Literal\[False\]\)\ \->\ Tuple\[Tuple\[TensorSpec\(shape=\(None,\),\ dtype=tf\.float32,\ name=None\),\ Dict\[\['sum',\ TensorSpec\(shape=\(None,\),\ dtype=tf\.float32,\ name=None\)\]\]\],\ Literal\[None\]\]
ConcreteFunction\ Input\ Parameters:
ConcreteFunction\ Input\ Parameters:
\ \ x\ \(POSITIONAL_OR_KEYWORD\):\ TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\)
Output\ Type:
\ \ TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\)
Captures:
  \d+: TensorSpec\(shape=\(\),\ dtype=tf\.resource,\ name=None\)
