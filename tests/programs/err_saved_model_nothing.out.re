tf\.Tensor\(2\.0,\ shape=\(\),\ dtype=float32\)
ConcreteFunction\ Input\ Parameters:
\ \ x\ \(POSITIONAL_OR_KEYWORD\):\ TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\)
Output\ Type:
\ \ TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\)
Captures:
  \d+: TensorSpec\(shape=\(\),\ dtype=tf\.resource,\ name=None\)
True
