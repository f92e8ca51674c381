^$
^Start\ of\ epoch\ 0$
^Training\ loss\ \(for\ one\ batch\)\ at\ step\ 0: *-?\d+\.\d+(e[-+]\d+)?$
^Seen\ so\ far:\ 64\ samples$
^$
^Start\ of\ epoch\ 1$
^Training\ loss\ \(for\ one\ batch\)\ at\ step\ 0: *-?\d+\.\d+(e[-+]\d+)?$
^Seen\ so\ far:\ 64\ samples$
^$
^Start\ of\ epoch\ 0$
^Training\ loss\ \(for\ one\ batch\)\ at\ step\ 0: *-?\d+\.\d+(e[-+]\d+)?$
^Seen\ so\ far:\ 64\ samples$
^Training\ acc\ over\ epoch: *-?\d+\.\d+(e[-+]\d+)?$
^Validation\ acc: *-?\d+\.\d+(e[-+]\d+)?$
^Time\ taken: *-?\d+\.\d+(e[-+]\d+)?s$
^$
^Start\ of\ epoch\ 1$
^Training\ loss\ \(for\ one\ batch\)\ at\ step\ 0: *-?\d+\.\d+(e[-+]\d+)?$
^Seen\ so\ far:\ 64\ samples$
^Training\ acc\ over\ epoch: *-?\d+\.\d+(e[-+]\d+)?$
^Validation\ acc: *-?\d+\.\d+(e[-+]\d+)?$
^Time\ taken: *-?\d+\.\d+(e[-+]\d+)?s$
^$
^Start\ of\ epoch\ 0$
^Training\ loss\ \(for\ one\ batch\)\ at\ step\ 0: *-?\d+\.\d+(e[-+]\d+)?$
^Seen\ so\ far:\ 64\ samples$
^Training\ acc\ over\ epoch: *-?\d+\.\d+(e[-+]\d+)?$
^Validation\ acc: *-?\d+\.\d+(e[-+]\d+)?$
^Time\ taken: *-?\d+\.\d+(e[-+]\d+)?s$
^$
^Start\ of\ epoch\ 1$
^Training\ loss\ \(for\ one\ batch\)\ at\ step\ 0: *-?\d+\.\d+(e[-+]\d+)?$
^Seen\ so\ far:\ 64\ samples$
^Training\ acc\ over\ epoch: *-?\d+\.\d+(e[-+]\d+)?$
^Validation\ acc: *-?\d+\.\d+(e[-+]\d+)?$
^Time\ taken: *-?\d+\.\d+(e[-+]\d+)?s$
^$
^with\ the\ activity\ loss:\ True$
^activity\ losses:\ 1$
