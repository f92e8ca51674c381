^Fit\ model\ on\ training\ data$
^Epoch\ 1/2$
^19/19\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 2/2$
^19/19\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Evaluate\ on\ test\ data$
^3/3\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^test\ loss,\ test\ acc:\ \[-?\d+\.\d+(e[-+]\d+)?,\ -?\d+\.\d+(e[-+]\d+)?\]$
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
^19/19\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ std_of_activation: *-?\d+\.\d+(e[-+]\d+)?$
^19/19\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ std_of_activation: *-?\d+\.\d+(e[-+]\d+)?$
^1/1\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ binary_accuracy: *-?\d+\.\d+(e[-+]\d+)?e\+00$
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
^True$
^4/4\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ score_output_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ class_output_loss: *-?\d+\.\d+(e[-+]\d+)?$
^4/4\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ score_output_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ class_output_loss: *-?\d+\.\d+(e[-+]\d+)?$
^2/2\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ score_output_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ class_output_loss: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 1/20$
^15/15\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 2/20$
^15/15\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 3/20$
^15/15\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 4/20$
^15/15\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 5/20$
^15/15\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 6/20$
^15/15\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 7/20$
^15/15\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 8/20$
^15/15\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 9/20$
^15/15\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 10/20$
^15/15\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 11/20$
^15/15\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 12/20$
^15/15\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 13/20$
^15/15\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 14/20$
^15/15\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 15/20$
^15/15\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 16/20$
^15/15\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 16:\ early\ stopping$
^Epoch\ 1/2$
^$
^Epoch\ 1:\ val_loss\ improved\ from\ (inf|-?\d+\.\d+(e[-+]\d+)?)\ to\ (inf|-?\d+\.\d+(e[-+]\d+)?),\ saving\ model\ to\ mymodel_1$
^15/15\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 2/2$
^$
^Epoch\ 2:\ val_loss\ improved\ from\ (inf|-?\d+\.\d+(e[-+]\d+)?)\ to\ (inf|-?\d+\.\d+(e[-+]\d+)?),\ saving\ model\ to\ mymodel_2$
^15/15\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Creating\ a\ new\ model$
^38/38\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ sparse_categorical_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
