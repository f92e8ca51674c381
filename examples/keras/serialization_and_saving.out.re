^4/4\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?$
^4/4\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step$
^4/4\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step$
^1/1\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?$
^1/1\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step$
^1/1\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step$
^1/1\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?$
^1/1\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step$
^1/1\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step$
^1/1\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?$
^1/1\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step$
^1/1\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step$
^\{'name':\ 'dense_4',\ 'trainable':\ True,\ 'dtype':\ 'float32',\ 'units':\ 3,\ 'activation':\ 'relu',\ 'use_bias':\ True,\ 'kernel_initializer':\ \{'module':\ 'keras\.initializers',\ 'class_name':\ 'GlorotUniform',\ 'config':\ \{'seed':\ None\},\ 'registered_name':\ None\},\ 'bias_initializer':\ \{'module':\ 'keras\.initializers',\ 'class_name':\ 'Zeros',\ 'config':\ \{\},\ 'registered_name':\ None\},\ 'kernel_regularizer':\ None,\ 'bias_regularizer':\ None,\ 'activity_regularizer':\ None,\ 'kernel_constraint':\ None,\ 'bias_constraint':\ None\}$
^\{'_CHECKPOINTABLE_OBJECT_GRAPH':\ tf\.string,\ 'layer/var/\.ATTRIBUTES/VARIABLE_VALUE':\ tf\.int32,\ 'save_counter/\.ATTRIBUTES/VARIABLE_VALUE':\ tf\.int64\}$
^Model:\ "pretrained_model"$
^_________________________________________________________________$
^\ Layer\ \(type\)\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ Output\ Shape\ \ \ \ \ \ \ \ \ \ \ \ \ \ Param\ \#\ \ \ $
^=================================================================$
^\ digits\ \(InputLayer\)\ \ \ \ \ \ \ \ \ \[\(None,\ 784\)\]\ \ \ \ \ \ \ \ \ \ \ \ \ 0\ \ \ \ \ \ \ \ \ $
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ $
^\ dense_1\ \(Dense\)\ \ \ \ \ \ \ \ \ \ \ \ \ \(None,\ 64\)\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ 50240\ \ \ \ \ $
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ $
^\ dense_2\ \(Dense\)\ \ \ \ \ \ \ \ \ \ \ \ \ \(None,\ 64\)\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ 4160\ \ \ \ \ \ $
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ $
^=================================================================$
^Total\ params:\ 54400\ \(212\.50\ KB\)$
^Trainable\ params:\ 54400\ \(212\.50\ KB\)$
^Non\-trainable\ params:\ 0\ \(0\.00\ Byte\)$
^_________________________________________________________________$
^$
^\ \-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-\-$
^Model:\ "new_model"$
^_________________________________________________________________$
^\ Layer\ \(type\)\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ Output\ Shape\ \ \ \ \ \ \ \ \ \ \ \ \ \ Param\ \#\ \ \ $
^=================================================================$
^\ digits\ \(InputLayer\)\ \ \ \ \ \ \ \ \ \[\(None,\ 784\)\]\ \ \ \ \ \ \ \ \ \ \ \ \ 0\ \ \ \ \ \ \ \ \ $
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ $
^\ dense_1\ \(Dense\)\ \ \ \ \ \ \ \ \ \ \ \ \ \(None,\ 64\)\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ 50240\ \ \ \ \ $
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ $
^\ dense_2\ \(Dense\)\ \ \ \ \ \ \ \ \ \ \ \ \ \(None,\ 64\)\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ 4160\ \ \ \ \ \ $
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ $
^\ predictions\ \(Dense\)\ \ \ \ \ \ \ \ \ \(None,\ 5\)\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ 325\ \ \ \ \ \ \ $
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ $
^=================================================================$
^Total\ params:\ 54725\ \(213\.77\ KB\)$
^Trainable\ params:\ 54725\ \(213\.77\ KB\)$
^Non\-trainable\ params:\ 0\ \(0\.00\ Byte\)$
^_________________________________________________________________$
^Model:\ "sequential_3"$
^_________________________________________________________________$
^\ Layer\ \(type\)\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ Output\ Shape\ \ \ \ \ \ \ \ \ \ \ \ \ \ Param\ \#\ \ \ $
^=================================================================$
^\ pretrained\ \(Functional\)\ \ \ \ \ \(None,\ 64\)\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ 54400\ \ \ \ \ $
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ $
^\ predictions\ \(Dense\)\ \ \ \ \ \ \ \ \ \(None,\ 5\)\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ 325\ \ \ \ \ \ \ $
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ $
^=================================================================$
^Total\ params:\ 54725\ \(213\.77\ KB\)$
^Trainable\ params:\ 54725\ \(213\.77\ KB\)$
^Non\-trainable\ params:\ 0\ \(0\.00\ Byte\)$
^_________________________________________________________________$
^variables:\ \['nested/dense_1/kernel:0',\ 'nested/dense_1/bias:0',\ 'nested/dense_2/kernel:0',\ 'nested/dense_2/bias:0'\]$
^$
^Changing\ trainable\ status\ of\ one\ of\ the\ nested\ layers\.\.\.$
^$
^variables:\ \['nested/dense_2/kernel:0',\ 'nested/dense_2/bias:0',\ 'nested/dense_1/kernel:0',\ 'nested/dense_1/bias:0'\]$
^variable\ ordering\ changed:\ True$
^Model:\ "sequential_6"$
^_________________________________________________________________$
^\ Layer\ \(type\)\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ Output\ Shape\ \ \ \ \ \ \ \ \ \ \ \ \ \ Param\ \#\ \ \ $
^=================================================================$
^\ dense_1\ \(Dense\)\ \ \ \ \ \ \ \ \ \ \ \ \ \(None,\ 64\)\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ 50240\ \ \ \ \ $
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ $
^\ dense_2\ \(Dense\)\ \ \ \ \ \ \ \ \ \ \ \ \ \(None,\ 64\)\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ 4160\ \ \ \ \ \ $
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ $
^\ dense_3\ \(Dense\)\ \ \ \ \ \ \ \ \ \ \ \ \ \(None,\ 5\)\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ 325\ \ \ \ \ \ \ $
^\ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ \ $
^=================================================================$
^Total\ params:\ 54725\ \(213\.77\ KB\)$
^Trainable\ params:\ 54725\ \(213\.77\ KB\)$
^Non\-trainable\ params:\ 0\ \(0\.00\ Byte\)$
^_________________________________________________________________$
^\{'module':\ 'keras\.regularizers',\ 'class_name':\ 'L1',\ 'config':\ \{'l1':\ 0\.004999999888241291\},\ 'registered_name':\ None\}$
^L1\ 0\.004999999888241291$
^\{'module':\ None,\ 'class_name':\ 'MyDense',\ 'config':\ \{'name':\ 'my_dense_1',\ 'trainable':\ True,\ 'dtype':\ 'float32',\ 'units':\ 64,\ 'kernel_regularizer':\ None,\ 'kernel_initializer':\ None,\ 'nested_model':\ \{'module':\ None,\ 'class_name':\ 'MyDense',\ 'config':\ \{'name':\ 'my_dense',\ 'trainable':\ True,\ 'dtype':\ 'float32',\ 'units':\ 16,\ 'kernel_regularizer':\ 'l1',\ 'kernel_initializer':\ 'ones',\ 'nested_model':\ None\},\ 'registered_name':\ 'MyLayers>KernelMult'\}\},\ 'registered_name':\ 'MyLayers>KernelMult'\}$
^MyDense\ 64\ dict$
^\{'module':\ None,\ 'class_name':\ 'MyDense',\ 'config':\ \{'name':\ 'my_dense_2',\ 'trainable':\ True,\ 'dtype':\ 'float32',\ 'units':\ 16,\ 'kernel_regularizer':\ \{'module':\ 'keras\.regularizers',\ 'class_name':\ 'L1L2',\ 'config':\ \{'l1':\ 9\.999999747378752e\-06,\ 'l2':\ 9\.999999747378752e\-05\},\ 'registered_name':\ None\},\ 'kernel_initializer':\ 'ones',\ 'nested_model':\ None\},\ 'registered_name':\ 'MyLayers>KernelMult'\}$
^Saved\ artifact\ at\ 'exported_model'\.\ The\ following\ endpoints\ are\ available:$
^$
^\*\ Endpoint\ 'serve'$
^\ \ inputs\ \(POSITIONAL_ONLY\):\ TensorSpec\(shape=\(None,\ 16\),\ dtype=tf\.float32,\ name='input_10'\)$
^Output\ Type:$
^\ \ TensorSpec\(shape=\(None,\ 1\),\ dtype=tf\.float32,\ name=None\)$
^Captures:$
^\ \ \d+:\ TensorSpec\(shape=\(\),\ dtype=tf\.resource,\ name=None\)$
^\ \ \d+:\ TensorSpec\(shape=\(\),\ dtype=tf\.resource,\ name=None\)$
^\ \ \d+:\ TensorSpec\(shape=\(\),\ dtype=tf\.resource,\ name=None\)$
^\ \ \d+:\ TensorSpec\(shape=\(\),\ dtype=tf\.resource,\ name=None\)$
^\ \ \d+:\ TensorSpec\(shape=\(\),\ dtype=tf\.resource,\ name=None\)$
^\ \ \d+:\ TensorSpec\(shape=\(\),\ dtype=tf\.resource,\ name=None\)$
^\ \ \d+:\ TensorSpec\(shape=\(\),\ dtype=tf\.resource,\ name=None\)$
^\ \ \d+:\ TensorSpec\(shape=\(\),\ dtype=tf\.resource,\ name=None\)$
^Saved\ artifact\ at\ 'exported_mha_layer'\.\ The\ following\ endpoints\ are\ available:$
^$
^\*\ Endpoint\ 'call'$
^\ \ query\ \(POSITIONAL_OR_KEYWORD\):\ TensorSpec\(shape=\(None,\ 2,\ 2\),\ dtype=tf\.float32,\ name=None\)$
^\ \ value\ \(POSITIONAL_OR_KEYWORD\):\ TensorSpec\(shape=\(None,\ 2,\ 2\),\ dtype=tf\.float32,\ name=None\)$
^\ \ key\ \(POSITIONAL_OR_KEYWORD\):\ Literal\[None\]$
^\ \ attention_mask\ \(POSITIONAL_OR_KEYWORD\):\ Literal\[None\]$
^\ \ return_attention_scores\ \(POSITIONAL_OR_KEYWORD\):\ Literal\[False\]$
^\ \ training\ \(POSITIONAL_OR_KEYWORD\):\ Literal\[None\]$
^\ \ use_causal_mask\ \(POSITIONAL_OR_KEYWORD\):\ Literal\[False\]$
^Output\ Type:$
^\ \ TensorSpec\(shape=\(None,\ 2,\ 2\),\ dtype=tf\.float32,\ name=None\)$
^Captures:$
^\ \ \d+:\ TensorSpec\(shape=\(\),\ dtype=tf\.resource,\ name=None\)$
^\ \ \d+:\ TensorSpec\(shape=\(\),\ dtype=tf\.resource,\ name=None\)$
^\ \ \d+:\ TensorSpec\(shape=\(\),\ dtype=tf\.resource,\ name=None\)$
^\ \ \d+:\ TensorSpec\(shape=\(\),\ dtype=tf\.resource,\ name=None\)$
^\ \ \d+:\ TensorSpec\(shape=\(\),\ dtype=tf\.resource,\ name=None\)$
^\ \ \d+:\ TensorSpec\(shape=\(\),\ dtype=tf\.resource,\ name=None\)$
^\ \ \d+:\ TensorSpec\(shape=\(\),\ dtype=tf\.resource,\ name=None\)$
^\ \ \d+:\ TensorSpec\(shape=\(\),\ dtype=tf\.resource,\ name=None\)$
^done$
