^tf\.Tensor\($
^\[\[1\.\ 2\.\ 3\.\]$
^\ \[4\.\ 5\.\ 6\.\]\],\ shape=\(2,\ 3\),\ dtype=float32\)$
^\(2,\ 3\)$
^<dtype:\ 'float32'>$
^<tf\.Tensor:\ shape=\(2,\ 3\),\ dtype=float32,\ numpy=$
^array\(\[\[\ 2\.,\ \ 4\.,\ \ 6\.\],$
^\ \ \ \ \ \ \ \[\ 8\.,\ 10\.,\ 12\.\]\],\ dtype=float32\)>$
^<tf\.Tensor:\ shape=\(2,\ 3\),\ dtype=float32,\ numpy=$
^array\(\[\[\ 5\.,\ 10\.,\ 15\.\],$
^\ \ \ \ \ \ \ \[20\.,\ 25\.,\ 30\.\]\],\ dtype=float32\)>$
^<tf\.Tensor:\ shape=\(2,\ 2\),\ dtype=float32,\ numpy=$
^array\(\[\[14\.,\ 32\.\],$
^\ \ \ \ \ \ \ \[32\.,\ 77\.\]\],\ dtype=float32\)>$
^<tf\.Tensor:\ shape=\(6,\ 3\),\ dtype=float32,\ numpy=$
^array\(\[\[1\.,\ 2\.,\ 3\.\],$
^\ \ \ \ \ \ \ \[4\.,\ 5\.,\ 6\.\],$
^\ \ \ \ \ \ \ \[1\.,\ 2\.,\ 3\.\],$
^\ \ \ \ \ \ \ \[4\.,\ 5\.,\ 6\.\],$
^\ \ \ \ \ \ \ \[1\.,\ 2\.,\ 3\.\],$
^\ \ \ \ \ \ \ \[4\.,\ 5\.,\ 6\.\]\],\ dtype=float32\)>$
^<tf\.Tensor:\ shape=\(2,\ 3\),\ dtype=float32,\ numpy=$
^array\(\[\[0\.09003057,\ 0\.24472848,\ 0\.66524094\],$
^\ \ \ \ \ \ \ \[0\.09003057,\ 0\.24472848,\ 0\.66524094\]\],\ dtype=float32\)>$
^<tf\.Tensor:\ shape=\(\),\ dtype=float32,\ numpy=21\.0>$
^<tf\.Tensor:\ shape=\(3,\),\ dtype=int32,\ numpy=array\(\[1,\ 2,\ 3\],\ dtype=int32\)>$
^<tf\.Tensor:\ shape=\(\),\ dtype=int32,\ numpy=6>$
^TensorFlow\ \*\*IS\ NOT\*\*\ using\ the\ GPU$
^<tf\.Variable\ 'UnreadVariable'\ shape=\(3,\)\ dtype=float32,\ numpy=array\(\[1\.,\ 2\.,\ 3\.\],\ dtype=float32\)>$
^<tf\.Variable\ 'UnreadVariable'\ shape=\(3,\)\ dtype=float32,\ numpy=array\(\[2\.,\ 3\.,\ 4\.\],\ dtype=float32\)>$
^<tf\.Tensor:\ shape=\(\),\ dtype=float32,\ numpy=\-2\.0>$
^<tf\.Tensor:\ shape=\(\),\ dtype=float32,\ numpy=4\.0>$
^Tracing\.$
^$
^<tf\.Tensor:\ shape=\(\),\ dtype=int32,\ numpy=6>$
^<tf\.Tensor:\ shape=\(\),\ dtype=int32,\ numpy=27>$
^Tracing\.$
^$
^<tf\.Tensor:\ shape=\(\),\ dtype=float32,\ numpy=27\.3>$
^<tf\.Tensor:\ shape=\(3,\),\ dtype=int32,\ numpy=array\(\[3,\ 6,\ 9\],\ dtype=int32\)>$
^<tf\.Tensor:\ shape=\(3,\),\ dtype=int32,\ numpy=array\(\[3,\ 6,\ 9\],\ dtype=int32\)>$
^Mean squared error for step 0: [0-9]+\.[0-9]{3}$
^Mean squared error for step 10: [0-9]+\.[0-9]{3}$
^Mean squared error for step 20: [0-9]+\.[0-9]{3}$
^Mean squared error for step 30: [0-9]+\.[0-9]{3}$
^Mean squared error for step 40: [0-9]+\.[0-9]{3}$
^Mean squared error for step 50: [0-9]+\.[0-9]{3}$
^Mean squared error for step 60: [0-9]+\.[0-9]{3}$
^Mean squared error for step 70: [0-9]+\.[0-9]{3}$
^Mean squared error for step 80: [0-9]+\.[0-9]{3}$
^Mean squared error for step 90: [0-9]+\.[0-9]{3}$
^$
^$
^Loss\ lowered:\ True\ True$
