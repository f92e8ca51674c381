tf\.Tensor\(3,\ shape=\(\),\ dtype=int32\)
tf\.Tensor\(\[4\ 6\],\ shape=\(2,\),\ dtype=int32\)
tf\.Tensor\(25,\ shape=\(\),\ dtype=int32\)
tf\.Tensor\(6,\ shape=\(\),\ dtype=int32\)
tf\.Tensor\(13,\ shape=\(\),\ dtype=int32\)
tf\.Tensor\(\[\[2\ 3\]\],\ shape=\(1,\ 2\),\ dtype=int32\)
\(1,\ 2\)
<dtype:\ 'int32'>
TensorFlow\ operations\ convert\ numpy\ arrays\ to\ Tensors\ automatically
tf\.Tensor\(
\[\[42\.\ 42\.\ 42\.\]
\ \[42\.\ 42\.\ 42\.\]
\ \[42\.\ 42\.\ 42\.\]\],\ shape=\(3,\ 3\),\ dtype=float64\)
And\ NumPy\ operations\ convert\ Tensors\ to\ numpy\ arrays\ automatically
\[\[43\.\ 43\.\ 43\.\]
\ \[43\.\ 43\.\ 43\.\]
\ \[43\.\ 43\.\ 43\.\]\]
The\ \.numpy\(\)\ method\ explicitly\ converts\ a\ Tensor\ to\ a\ numpy\ array
\[\[42\.\ 42\.\ 42\.\]
\ \[42\.\ 42\.\ 42\.\]
\ \[42\.\ 42\.\ 42\.\]\]
Is\ there\ a\ GPU\ available:\ 
\[\]
Is\ the\ Tensor\ on\ GPU\ \#0:\ \ 
False
On\ CPU:
10 loops: \d+\.\d\dms
Elements\ of\ ds_tensors:
tf\.Tensor\(\[ ?(1|4|9|16|25|36) +(1|4|9|16|25|36)\], shape=\(2,\), dtype=int32\)
tf\.Tensor\(\[ ?(1|4|9|16|25|36) +(1|4|9|16|25|36)\], shape=\(2,\), dtype=int32\)
tf\.Tensor\(\[ ?(1|4|9|16|25|36) +(1|4|9|16|25|36)\], shape=\(2,\), dtype=int32\)

Elements\ in\ ds_file:
tf\.Tensor\(\[b'Line\ 1'\ b'Line\ 2'\],\ shape=\(2,\),\ dtype=string\)
tf\.Tensor\(\[b'Line\ 3'\ b'\ \ '\],\ shape=\(2,\),\ dtype=string\)
