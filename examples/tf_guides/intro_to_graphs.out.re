^array\(\[\[12\.\]\],\ dtype=float32\)$
^First\ branch,\ with\ graph:\ 1$
^Second\ branch,\ with\ graph:\ 0$
^def\ tf__simple_relu\(x\):$
^\ \ \ \ with\ ag__\.FunctionScope\('simple_relu',\ 'fscope',\ ag__\.ConversionOptions\(recursive=True,\ user_requested=True,\ optional_features=\(\),\ internal_convert_user_code=True\)\)\ as\ fscope:$
^\ \ \ \ \ \ \ \ do_return\ =\ False$
^\ \ \ \ \ \ \ \ retval_\ =\ ag__\.UndefinedReturnValue\(\)$
^$
^\ \ \ \ \ \ \ \ def\ get_state\(\):$
^\ \ \ \ \ \ \ \ \ \ \ \ return\ \(do_return,\ retval_\)$
^$
^\ \ \ \ \ \ \ \ def\ set_state\(vars_\):$
^            nonlocal (do_return, retval_|retval_, do_return)$
^\ \ \ \ \ \ \ \ \ \ \ \ \(do_return,\ retval_\)\ =\ vars_$
^$
^\ \ \ \ \ \ \ \ def\ if_body\(\):$
^            nonlocal (do_return, retval_|retval_, do_return)$
^\ \ \ \ \ \ \ \ \ \ \ \ try:$
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ do_return\ =\ True$
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ retval_\ =\ ag__\.ld\(x\)$
^\ \ \ \ \ \ \ \ \ \ \ \ except:$
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ do_return\ =\ False$
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ raise$
^$
^\ \ \ \ \ \ \ \ def\ else_body\(\):$
^            nonlocal (do_return, retval_|retval_, do_return)$
^\ \ \ \ \ \ \ \ \ \ \ \ try:$
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ do_return\ =\ True$
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ retval_\ =\ 0$
^\ \ \ \ \ \ \ \ \ \ \ \ except:$
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ do_return\ =\ False$
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ raise$
^\ \ \ \ \ \ \ \ ag__\.if_stmt\(ag__\.converted_call\(ag__\.ld\(tf\)\.greater,\ \(ag__\.ld\(x\),\ 0\),\ None,\ fscope\),\ if_body,\ else_body,\ get_state,\ set_state,\ \('do_return',\ 'retval_'\),\ 2\)$
^\ \ \ \ \ \ \ \ return\ fscope\.ret\(retval_,\ do_return\)$
^$
^tf\.Tensor\(5\.5,\ shape=\(\),\ dtype=float32\)$
^tf\.Tensor\(\[1\.\ 0\.\],\ shape=\(2,\),\ dtype=float32\)$
^tf\.Tensor\(\[3\.\ 0\.\],\ shape=\(2,\),\ dtype=float32\)$
^tf\.Tensor\(0\.0,\ shape=\(\),\ dtype=float32\)$
^tf\.Tensor\(\[0\.\ 1\.\],\ shape=\(2,\),\ dtype=float32\)$
^Input\ Parameters:$
^\ \ x\ \(POSITIONAL_OR_KEYWORD\):\ TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\)$
^Output\ Type:$
^\ \ TensorSpec\(shape=\(\),\ dtype=tf\.float32,\ name=None\)$
^Captures:$
^\ \ None$
^$
^Input\ Parameters:$
^\ \ x\ \(POSITIONAL_OR_KEYWORD\):\ List\[Literal\[1\],\ Literal\[\-1\]\]$
^Output\ Type:$
^\ \ TensorSpec\(shape=\(2,\),\ dtype=tf\.float32,\ name=None\)$
^Captures:$
^\ \ None$
^$
^Input\ Parameters:$
^\ \ x\ \(POSITIONAL_OR_KEYWORD\):\ TensorSpec\(shape=\(2,\),\ dtype=tf\.float32,\ name=None\)$
^Output\ Type:$
^\ \ TensorSpec\(shape=\(2,\),\ dtype=tf\.float32,\ name=None\)$
^Captures:$
^\ \ None$
^tf\.Tensor\(\[[0-9]( [0-9]){4}\], shape=\(5,\), dtype=int32\)$
^tf\.Tensor\(\[[0-9]( [0-9]){4}\], shape=\(5,\), dtype=int32\)$
^<tf\.Tensor: shape=\(\), dtype=int32, numpy=[0-9]+>$
^<tf\.Tensor: shape=\(\), dtype=int32, numpy=[0-9]+>$
^Calculating\ MSE!$
^Calculating\ MSE!$
^Calculating\ MSE!$
^Calculating\ MSE!$
^Eager execution: [0-9]+\.[0-9]+(e-[0-9]+)?$
^Graph execution: [0-9]+\.[0-9]+(e-[0-9]+)?$
^Same\ result:\ True$
^Tracing!$
^tf\.Tensor\(6,\ shape=\(\),\ dtype=int32\)$
^tf\.Tensor\(11,\ shape=\(\),\ dtype=int32\)$
^Tracing!$
^tf\.Tensor\(6,\ shape=\(\),\ dtype=int32\)$
^Tracing!$
^tf\.Tensor\(11,\ shape=\(\),\ dtype=int32\)$
