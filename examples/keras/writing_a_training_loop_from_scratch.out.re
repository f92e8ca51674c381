^$
^Start\ of\ epoch\ 0$
^Training\ loss\ \(for\ one\ batch\)\ at\ step\ 0:\ -?\d+\.\d+(e[-+]\d+)?$
^Seen\ so\ far:\ 64\ samples$
^$
^Start\ of\ epoch\ 1$
^Training\ loss\ \(for\ one\ batch\)\ at\ step\ 0:\ -?\d+\.\d+(e[-+]\d+)?$
^Seen\ so\ far:\ 64\ samples$
^$
^Start\ of\ epoch\ 0$
^Training\ loss\ \(for\ one\ batch\)\ at\ step\ 0:\ -?\d+\.\d+(e[-+]\d+)?$
^Seen\ so\ far:\ 64\ samples$
^Training\ acc\ over\ epoch:\ -?\d+\.\d+(e[-+]\d+)?$
^Validation\ acc:\ -?\d+\.\d+(e[-+]\d+)?$
^Time\ taken:\ -?\d+\.\d+(e[-+]\d+)?s$
^$
^Start\ of\ epoch\ 1$
^Training\ loss\ \(for\ one\ batch\)\ at\ step\ 0:\ -?\d+\.\d+(e[-+]\d+)?$
^Seen\ so\ far:\ 64\ samples$
^Training\ acc\ over\ epoch:\ -?\d+\.\d+(e[-+]\d+)?$
^Validation\ acc:\ -?\d+\.\d+(e[-+]\d+)?$
^Time\ taken:\ -?\d+\.\d+(e[-+]\d+)?s$
^$
^Start\ of\ epoch\ 0$
^Training\ loss\ \(for\ one\ batch\)\ at\ step\ 0:\ -?\d+\.\d+(e[-+]\d+)?$
^Seen\ so\ far:\ 64\ samples$
^Training\ acc\ over\ epoch:\ -?\d+\.\d+(e[-+]\d+)?$
^Validation\ acc:\ -?\d+\.\d+(e[-+]\d+)?$
^Time\ taken:\ -?\d+\.\d+(e[-+]\d+)?s$
^$
^Start\ of\ epoch\ 1$
^Training\ loss\ \(for\ one\ batch\)\ at\ step\ 0:\ -?\d+\.\d+(e[-+]\d+)?$
^Seen\ so\ far:\ 64\ samples$
^Training\ acc\ over\ epoch:\ -?\d+\.\d+(e[-+]\d+)?$
^Validation\ acc:\ -?\d+\.\d+(e[-+]\d+)?$
^Time\ taken:\ -?\d+\.\d+(e[-+]\d+)?s$
^$
^with\ the\ activity\ loss:\ True$
^activity\ losses:\ 1$
^Model:\ "discriminator"$
^_________________________________________________________________$
^\ Layer\ \(type\)\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ Output\ Shape\ \ \ \ \ \ \ \ \ \ \ \ \ \ Param\ \#\ \ \ $
^=================================================================$
^\ conv2d\ \(Conv2D\)\ \ \ \ \ \ \ \ \ \ \ \ \ \(None,\ 4,\ 4,\ 64\)\ \ \ \ \ \ \ \ \ \ 640\ \ \ \ \ \ \ $
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ $
^\ leaky_re_lu\ \(LeakyReLU\)\ \ \ \ \ \(None,\ 4,\ 4,\ 64\)\ \ \ \ \ \ \ \ \ \ 0\ \ \ \ \ \ \ \ \ $
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ $
^\ conv2d_1\ \(Conv2D\)\ \ \ \ \ \ \ \ \ \ \ \(None,\ 2,\ 2,\ 128\)\ \ \ \ \ \ \ \ \ 73856\ \ \ \ \ $
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ $
^\ leaky_re_lu_1\ \(LeakyReLU\)\ \ \ \(None,\ 2,\ 2,\ 128\)\ \ \ \ \ \ \ \ \ 0\ \ \ \ \ \ \ \ \ $
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ $
^\ global_max_pooling2d\ \(Glob\ \ \(None,\ 128\)\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ 0\ \ \ \ \ \ \ \ \ $
^\ alMaxPooling2D\)\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ $
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ $
^\ dense_4\ \(Dense\)\ \ \ \ \ \ \ \ \ \ \ \ \ \(None,\ 1\)\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ 129\ \ \ \ \ \ \ $
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ $
^=================================================================$
^Total\ params:\ 74625\ \(291\.50\ KB\)$
^Trainable\ params:\ 74625\ \(291\.50\ KB\)$
^Non\-trainable\ params:\ 0\ \(0\.00\ Byte\)$
^_________________________________________________________________$
^$
^Start\ epoch\ 0$
^discriminator\ loss\ at\ step\ 0:\ -?\d+\.\d+(e[-+]\d+)?$
^adversarial\ loss\ at\ step\ 0:\ -?\d+\.\d+(e[-+]\d+)?$
^\['generated_img0\.png'\]\ \(8,\ 8\)$
