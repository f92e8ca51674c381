^Fit\ model\ on\ training\ data$
^Epoch\ 1/2$
^19/19\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 2/2$
^19/19\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Evaluate\ on\ test\ data$
^3/3\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^test\ loss,\ test\ acc:\ \[ *-?\d+\.\d+(e[-+]\d+)?, *-?\d+\.\d+(e[-+]\d+)?\]$
^Generate\ predictions\ for\ 3\ samples$
^1/1\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step$
^predictions\ shape:\ \(3,\ 10\)$
^19/19\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?$
^19/19\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 1/3$
^19/19\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ categorical_true_positives: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 2/3$
^19/19\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ categorical_true_positives: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 3/3$
^19/19\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ categorical_true_positives: *-?\d+\.\d+(e[-+]\d+)?$
^19/19\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?$
^15/15\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 1/3$
^19/19\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 2/3$
^19/19\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 3/3$
^19/19\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Evaluate$
^5/5\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 1/3$
^6/6\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 2/3$
^6/6\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 3/3$
^6/6\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^19/19\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^19/19\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Fit\ with\ class\ weight$
^19/19\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Fit\ with\ sample\ weight$
^19/19\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^19/19\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^history\ keys:\ \['loss',\ 'sparse_categorical_accuracy',\ 'val_loss',\ 'val_sparse_categorical_accuracy'\]$
