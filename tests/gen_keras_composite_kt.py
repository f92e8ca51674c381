#!/usr/bin/python3
# gen_keras_composite_kt.py — writes tests/programs/keras_composite_kt.out: Python's own string splitting and numpy's sparse/ragged arithmetic on the program's data, around the KerasTensor and summary text Keras 2.15 prints.
"""Independent reference for tests/programs/keras_composite_kt.tfs (TensorFlow and Keras are not installed here).

    /usr/bin/python3 tests/gen_keras_composite_kt.py

tf.strings.split(s) with no separator splits on runs of whitespace (Python's str.split()); tf.strings.bytes_split
gives one element per byte. The KerasTensor lines follow keras/src/engine/keras_tensor.py's __repr__ (a composite
value shows its TypeSpec), the layer names tf_op_layer.py's: TFOpLambda "tf.<canonical symbol>", InstanceProperty /
InstanceMethod "input.<attr>", ClassMethod "tf.RaggedTensor.<method>", each zero-based (unique_object_name); the
summaries layer_utils.print_summary's table, Output Shape being backend.int_shape of the output (None when the rank
is unknown: SparseReduceSum has no static shape).
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

TEXTS = ["the quick brown fox", "a  b", "hello", "tf keras ragged tensors"]
XV = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0], [4.0, 5.0, 6.0]], np.float32)

SUMMARY_TEXT = """Model: "model"
__________________________________________________________________________________________________
 Layer (type)                Output Shape                 Param #   Connected to                  
==================================================================================================
 text (InputLayer)           [(None,)]                    0         []                            
                                                                                                  
 tf.strings.split (TFOpLamb  (None, None)                 0         ['text[0][0]']                
 da)                                                                                              
                                                                                                  
 tf.strings.bytes_split (TF  (None, None)                 0         ['text[0][0]']                
 OpLambda)                                                                                        
                                                                                                  
 input.row_lengths (Instanc  (None,)                      0         ['tf.strings.split[0][0]']    
 eMethod)                                                                                         
                                                                                                  
 input.row_lengths_1 (Insta  (None,)                      0         ['tf.strings.bytes_split[0][0]
 nceMethod)                                                         ']                            
                                                                                                  
 input.to_tensor (InstanceM  (None, None)                 0         ['tf.strings.split[0][0]']    
 ethod)                                                                                           
                                                                                                  
 input.values (InstanceProp  (None,)                      0         ['tf.strings.split[0][0]']    
 erty)                                                                                            
                                                                                                  
==================================================================================================
Total params: 0 (0.00 Byte)
Trainable params: 0 (0.00 Byte)
Non-trainable params: 0 (0.00 Byte)
__________________________________________________________________________________________________"""

SUMMARY_X = """Model: "model_1"
__________________________________________________________________________________________________
 Layer (type)                Output Shape                 Param #   Connected to                  
==================================================================================================
 x (InputLayer)              [(None, 3)]                  0         []                            
                                                                                                  
 tf.sparse.from_dense (TFOp  (None, 3)                    0         ['x[0][0]']                   
 Lambda)                                                                                          
                                                                                                  
 tf.RaggedTensor.from_tenso  (None, 3)                    0         ['x[0][0]']                   
 r (ClassMethod)                                                                                  
                                                                                                  
 tf.sparse.reduce_sum (TFOp  None                         0         ['tf.sparse.from_dense[0][0]']
 Lambda)                                                                                          
                                                                                                  
 tf.sparse.to_dense (TFOpLa  (None, None)                 0         ['tf.sparse.from_dense[0][0]']
 mbda)                                                                                            
                                                                                                  
 input.to_tensor_1 (Instanc  (None, 3)                    0         ['tf.RaggedTensor.from_tensor[
 eMethod)                                                           0][0]']                       
                                                                                                  
 input.indices_1 (InstanceP  (None, 2)                    0         ['tf.sparse.from_dense[0][0]']
 roperty)                                                                                         
                                                                                                  
==================================================================================================
Total params: 0 (0.00 Byte)
Trainable params: 0 (0.00 Byte)
Non-trainable params: 0 (0.00 Byte)
__________________________________________________________________________________________________"""


def kt(kind, layer):
    return f"<KerasTensor: {kind} (created by layer '{layer}')>"


def ragged(dims, dtype):
    return f"type_spec=RaggedTensorSpec(TensorShape([{dims}]), tf.{dtype}, 1, tf.int64)"


def fl(v):
    return [float(x) for x in v]


def main():
    L = []
    p = lambda *a: L.append(" ".join(str(x) for x in a))
    p(kt(ragged("None, None", "string"), "tf.strings.split"))
    p(kt(ragged("None, None", "string"), "tf.strings.bytes_split"))
    p("RaggedKerasTensor 1 (None, None) string")
    p(kt("shape=(None,) dtype=int64", "input.row_lengths"))
    p(kt("shape=(None,) dtype=string", "input.values"))
    p(kt("shape=(None, None) dtype=string", "input.to_tensor"))
    L.append(SUMMARY_TEXT)
    words = [[w.encode() for w in t.split()] for t in TEXTS]
    width = max(len(w) for w in words)
    nwords = [len(w) for w in words]
    nchars = [len(t.encode()) for t in TEXTS]
    p(nwords, True)
    p(nchars, True)
    p([w + [b"<pad>"] * (width - len(w)) for w in words], True)
    p([x for w in words for x in w], True)
    p([nwords, nchars])
    p(kt("type_spec=SparseTensorSpec(TensorShape([None, 3]), tf.float32)", "tf.sparse.from_dense"))
    p(kt(ragged("None, 3", "float32"), "tf.RaggedTensor.from_tensor"))
    p("SparseKerasTensor RaggedKerasTensor (None, 3) (None, 3)")
    p(kt("shape=<unknown> dtype=float32", "tf.sparse.reduce_sum"))
    p(kt("shape=(None, None) dtype=float32", "tf.sparse.to_dense"))
    p(kt("shape=(None, 3) dtype=float32", "input.to_tensor_1"))
    p(kt("shape=(None, 2) dtype=int64", "input.indices"), kt("shape=(None,) dtype=int64", "input.row_lengths_2"))
    L.append(SUMMARY_X)
    nz = np.argwhere(XV != 0)
    p(fl(XV.sum(axis=1)), True)
    p([fl(r) for r in XV], True)
    p([fl(r) for r in XV], True)
    p(nz.tolist(), True)
    p(fl(XV.sum(axis=1)))
    p(kt("type_spec=SparseTensorSpec(TensorShape([None, 4]), tf.float32)", "sp_in"), "SparseKerasTensor")
    d = np.zeros((2, 4), np.float32)
    d[0, 1], d[1, 3] = 5.0, 7.0
    p([fl(r) for r in d])
    p(fl(d.sum(axis=1)))
    p(kt("shape=(None,) dtype=float32", "input.values_1"))
    with open(os.path.join(HERE, "programs", "keras_composite_kt.out"), "w") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    main()
