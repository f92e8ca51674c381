^\(2,\ 4\)\ <dtype:\ 'float32'>$
^\[2\.\ 2\.\]$
^\[4\.\ 4\.\]$
^weights:\ 1$
^non\-trainable\ weights:\ 1$
^trainable_weights:\ \[\]$
^\(2,\ 32\)\ \[\(2,\ 32\),\ \(32,\)\]$
^weights:\ 6$
^trainable\ weights:\ 6$
^1\ \(\)\ <dtype:\ 'float32'>$
^equals\ 1e\-3\ \*\ sum\(kernel\ \*\*\ 2\):\ True$
^1/1\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?$
^1/1\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?$
^\{'units':\ 64\}$
^\{'name':\ 'linear_7',\ 'trainable':\ True,\ 'dtype':\ 'float32',\ 'units':\ 64\}$
^linear_7\ 64$
^inference\ is\ the\ identity:\ True$
^training\ drops\ and\ rescales:\ True\ True$
^Start\ of\ epoch\ 0$
^step\ 0:\ mean\ loss\ =\ -?\d+\.\d+(e[-+]\d+)?$
^step\ 10:\ mean\ loss\ =\ -?\d+\.\d+(e[-+]\d+)?$
^step\ 20:\ mean\ loss\ =\ -?\d+\.\d+(e[-+]\d+)?$
^Start\ of\ epoch\ 1$
^step\ 0:\ mean\ loss\ =\ -?\d+\.\d+(e[-+]\d+)?$
^step\ 10:\ mean\ loss\ =\ -?\d+\.\d+(e[-+]\d+)?$
^step\ 20:\ mean\ loss\ =\ -?\d+\.\d+(e[-+]\d+)?$
^loss\ decreased:\ True$
^Epoch\ 1/2$
^24/24\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 2/2$
^24/24\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?$
^loss\ decreased:\ True$
