^Restoring\ model\ weights\ from\ the\ end\ of\ the\ best\ epoch:\ 2\.$
^Epoch\ 4:\ early\ stopping$
^\[0,\ 1,\ 2,\ 3\]\ 3\ 0\.4\ 1\ True$
^restored:\ True$
^0\.1\ True$
^\[0,\ 1,\ 2\]$
^$
^Epoch\ 1:\ val_loss\ improved\ from\ inf\ to\ 0\.50000,\ saving\ model\ to\ .*/ckpt\-01\-0\.50\.h5$
^$
^Epoch\ 2:\ val_loss\ did\ not\ improve\ from\ 0\.50000$
^$
^Epoch\ 3:\ val_loss\ improved\ from\ 0\.50000\ to\ 0\.25000,\ saving\ model\ to\ .*/ckpt\-03\-0\.25\.h5$
^$
^Epoch\ 4:\ val_loss\ did\ not\ improve\ from\ 0\.25000$
^\['ckpt\-01\-0\.50\.h5',\ 'ckpt\-03\-0\.25\.h5'\]$
^$
^Epoch\ 1:\ saving\ model\ to\ .*/every\-1\.h5$
^$
^Epoch\ 2:\ saving\ model\ to\ .*/every\-2\.h5$
^2$
^checkpoint\ reloads:\ True$
^$
^Epoch\ 2:\ ReduceLROnPlateau\ reducing\ learning\ rate\ to\ 0\.05000000074505806\.$
^$
^Epoch\ 3:\ ReduceLROnPlateau\ reducing\ learning\ rate\ to\ 0\.03\.$
^\[0\.1,\ 0\.1,\ 0\.05,\ 0\.03,\ 0\.03\]\ 0\.03$
^$
^Epoch\ 1:\ LearningRateScheduler\ setting\ learning\ rate\ to\ 0\.10000000149011612\.$
^$
^Epoch\ 2:\ LearningRateScheduler\ setting\ learning\ rate\ to\ 0\.05000000074505806\.$
^$
^Epoch\ 3:\ LearningRateScheduler\ setting\ learning\ rate\ to\ 0\.02500000037252903\.$
^\[0\.1,\ 0\.05,\ 0\.025\]$
^\[0\.01,\ 0\.02\]$
^ValueError:\ The\ output\ of\ the\ "schedule"\ function\ should\ be\ float\.\ Got:\ fast$
^ValueError:\ ReduceLROnPlateau\ does\ not\ support\ a\ factor\ >=\ 1\.0\.\ Got\ 1\.5$
^epoch,loss,val_loss\ 4\ True\ \['0',\ '1'\]$
^5\ 1$
^Batch\ 0:\ Invalid\ loss,\ terminating\ training$
^\[0\]$
^train\ 1\ \['batch_loss@1',\ 'batch_loss@2',\ 'epoch_loss@0',\ 'epoch_loss@1'\]$
^validation\ 1\ \['epoch_loss@0',\ 'epoch_loss@1',\ 'evaluation_loss_vs_iterations@1',\ 'evaluation_loss_vs_iterations@2'\]$
