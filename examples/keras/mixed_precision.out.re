^Compute\ dtype:\ float16$
^Variable\ dtype:\ float32$
^<Policy\ "mixed_float16">$
^x\.dtype:\ float16$
^dense1\.kernel\.dtype:\ float32$
^Outputs\ dtype:\ float16$
^Outputs\ dtype:\ float32$
^Epoch\ 1/10$
^5/5\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 2/10$
^5/5\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 3/10$
^5/5\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 4/10$
^5/5\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 5/10$
^5/5\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 6/10$
^5/5\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 7/10$
^5/5\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 8/10$
^5/5\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 9/10$
^5/5\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 10/10$
^5/5\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ val_accuracy: *-?\d+\.\d+(e[-+]\d+)?$
^10/10\ \-\ \d+s\ \-\ loss: *-?\d+\.\d+(e[-+]\d+)?\ \-\ accuracy: *-?\d+\.\d+(e[-+]\d+)?\ \-\ \d+(s|ms|us)/epoch\ \-\ \d+(s|ms|us)/step$
^Test\ loss:\ \d+\.\d+(e[-+]\d+)?$
^Test\ accuracy:\ \d+\.\d+(e[-+]\d+)?$
^inf$
^0\.0$
^Epoch\ 0:\ loss=-?\d+\.\d+(e[-+]\d+)?,\ test\ accuracy=-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 1:\ loss=-?\d+\.\d+(e[-+]\d+)?,\ test\ accuracy=-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 2:\ loss=-?\d+\.\d+(e[-+]\d+)?,\ test\ accuracy=-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 3:\ loss=-?\d+\.\d+(e[-+]\d+)?,\ test\ accuracy=-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 4:\ loss=-?\d+\.\d+(e[-+]\d+)?,\ test\ accuracy=-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 5:\ loss=-?\d+\.\d+(e[-+]\d+)?,\ test\ accuracy=-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 6:\ loss=-?\d+\.\d+(e[-+]\d+)?,\ test\ accuracy=-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 7:\ loss=-?\d+\.\d+(e[-+]\d+)?,\ test\ accuracy=-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 8:\ loss=-?\d+\.\d+(e[-+]\d+)?,\ test\ accuracy=-?\d+\.\d+(e[-+]\d+)?$
^Epoch\ 9:\ loss=-?\d+\.\d+(e[-+]\d+)?,\ test\ accuracy=-?\d+\.\d+(e[-+]\d+)?$
^Loss\ scale:\ 32768\.0$
^Learned\ something:\ True$
