^Starting\ training;\ got\ log\ keys:\ \[\]$
^Start\ epoch\ 0\ of\ training;\ got\ log\ keys:\ \[\]$
^\.\.\.Training:\ start\ of\ batch\ 0;\ got\ log\ keys:\ \[\]$
^\.\.\.Training:\ end\ of\ batch\ 0;\ got\ log\ keys:\ \['loss',\ 'mean_absolute_error'\]$
^\.\.\.Training:\ start\ of\ batch\ 1;\ got\ log\ keys:\ \[\]$
^\.\.\.Training:\ end\ of\ batch\ 1;\ got\ log\ keys:\ \['loss',\ 'mean_absolute_error'\]$
^\.\.\.Training:\ start\ of\ batch\ 2;\ got\ log\ keys:\ \[\]$
^\.\.\.Training:\ end\ of\ batch\ 2;\ got\ log\ keys:\ \['loss',\ 'mean_absolute_error'\]$
^\.\.\.Training:\ start\ of\ batch\ 3;\ got\ log\ keys:\ \[\]$
^\.\.\.Training:\ end\ of\ batch\ 3;\ got\ log\ keys:\ \['loss',\ 'mean_absolute_error'\]$
^Start\ testing;\ got\ log\ keys:\ \[\]$
^\.\.\.Evaluating:\ start\ of\ batch\ 0;\ got\ log\ keys:\ \[\]$
^\.\.\.Evaluating:\ end\ of\ batch\ 0;\ got\ log\ keys:\ \['loss',\ 'mean_absolute_error'\]$
^\.\.\.Evaluating:\ start\ of\ batch\ 1;\ got\ log\ keys:\ \[\]$
^\.\.\.Evaluating:\ end\ of\ batch\ 1;\ got\ log\ keys:\ \['loss',\ 'mean_absolute_error'\]$
^\.\.\.Evaluating:\ start\ of\ batch\ 2;\ got\ log\ keys:\ \[\]$
^\.\.\.Evaluating:\ end\ of\ batch\ 2;\ got\ log\ keys:\ \['loss',\ 'mean_absolute_error'\]$
^\.\.\.Evaluating:\ start\ of\ batch\ 3;\ got\ log\ keys:\ \[\]$
^\.\.\.Evaluating:\ end\ of\ batch\ 3;\ got\ log\ keys:\ \['loss',\ 'mean_absolute_error'\]$
^Stop\ testing;\ got\ log\ keys:\ \['loss',\ 'mean_absolute_error'\]$
^End\ epoch\ 0\ of\ training;\ got\ log\ keys:\ \['loss',\ 'mean_absolute_error',\ 'val_loss',\ 'val_mean_absolute_error'\]$
^Stop\ training;\ got\ log\ keys:\ \['loss',\ 'mean_absolute_error',\ 'val_loss',\ 'val_mean_absolute_error'\]$
^Start\ testing;\ got\ log\ keys:\ \[\]$
^\.\.\.Evaluating:\ start\ of\ batch\ 0;\ got\ log\ keys:\ \[\]$
^\.\.\.Evaluating:\ end\ of\ batch\ 0;\ got\ log\ keys:\ \['loss',\ 'mean_absolute_error'\]$
^\.\.\.Evaluating:\ start\ of\ batch\ 1;\ got\ log\ keys:\ \[\]$
^\.\.\.Evaluating:\ end\ of\ batch\ 1;\ got\ log\ keys:\ \['loss',\ 'mean_absolute_error'\]$
^\.\.\.Evaluating:\ start\ of\ batch\ 2;\ got\ log\ keys:\ \[\]$
^\.\.\.Evaluating:\ end\ of\ batch\ 2;\ got\ log\ keys:\ \['loss',\ 'mean_absolute_error'\]$
^Stop\ testing;\ got\ log\ keys:\ \['loss',\ 'mean_absolute_error'\]$
^Start\ predicting;\ got\ log\ keys:\ \[\]$
^\.\.\.Predicting:\ start\ of\ batch\ 0;\ got\ log\ keys:\ \[\]$
^\.\.\.Predicting:\ end\ of\ batch\ 0;\ got\ log\ keys:\ \['outputs'\]$
^\.\.\.Predicting:\ start\ of\ batch\ 1;\ got\ log\ keys:\ \[\]$
^\.\.\.Predicting:\ end\ of\ batch\ 1;\ got\ log\ keys:\ \['outputs'\]$
^\.\.\.Predicting:\ start\ of\ batch\ 2;\ got\ log\ keys:\ \[\]$
^\.\.\.Predicting:\ end\ of\ batch\ 2;\ got\ log\ keys:\ \['outputs'\]$
^Stop\ predicting;\ got\ log\ keys:\ \[\]$
^3/3\ \[==============================\]\ \-\ \d+s \d+(s|ms|us)/step$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 3,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 4,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 5,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 6,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 7,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^The\ average\ loss\ for\ epoch\ 0\ is *-?\d+\.\d+(e[-+]\d+)?\ and\ mean\ absolute\ error\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 3,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 4,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 5,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 6,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 7,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^The\ average\ loss\ for\ epoch\ 1\ is *-?\d+\.\d+(e[-+]\d+)?\ and\ mean\ absolute\ error\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 3,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 4,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^The\ average\ loss\ for\ epoch\ 0\ is *-?\d+\.\d+(e[-+]\d+)?\ and\ mean\ absolute\ error\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 3,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 4,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^The\ average\ loss\ for\ epoch\ 1\ is *-?\d+\.\d+(e[-+]\d+)?\ and\ mean\ absolute\ error\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 3,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 4,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^The\ average\ loss\ for\ epoch\ 2\ is *-?\d+\.\d+(e[-+]\d+)?\ and\ mean\ absolute\ error\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 3,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 4,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^The\ average\ loss\ for\ epoch\ 3\ is *-?\d+\.\d+(e[-+]\d+)?\ and\ mean\ absolute\ error\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^Restoring\ model\ weights\ from\ the\ end\ of\ the\ best\ epoch\.$
^Epoch\ 00004:\ early\ stopping$
^$
^Epoch\ 00000:\ Learning\ rate\ is\ 0\.1000\.$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 3,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 4,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^The\ average\ loss\ for\ epoch\ 0\ is *-?\d+\.\d+(e[-+]\d+)?\ and\ mean\ absolute\ error\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^$
^Epoch\ 00001:\ Learning\ rate\ is\ 0\.1000\.$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 3,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 4,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^The\ average\ loss\ for\ epoch\ 1\ is *-?\d+\.\d+(e[-+]\d+)?\ and\ mean\ absolute\ error\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^$
^Epoch\ 00002:\ Learning\ rate\ is\ 0\.1000\.$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 3,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 4,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^The\ average\ loss\ for\ epoch\ 2\ is *-?\d+\.\d+(e[-+]\d+)?\ and\ mean\ absolute\ error\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^$
^Epoch\ 00003:\ Learning\ rate\ is\ 0\.0500\.$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 3,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 4,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^The\ average\ loss\ for\ epoch\ 3\ is *-?\d+\.\d+(e[-+]\d+)?\ and\ mean\ absolute\ error\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^$
^Epoch\ 00004:\ Learning\ rate\ is\ 0\.0500\.$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 3,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 4,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^The\ average\ loss\ for\ epoch\ 4\ is *-?\d+\.\d+(e[-+]\d+)?\ and\ mean\ absolute\ error\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^$
^Epoch\ 00005:\ Learning\ rate\ is\ 0\.0500\.$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 3,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 4,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^The\ average\ loss\ for\ epoch\ 5\ is *-?\d+\.\d+(e[-+]\d+)?\ and\ mean\ absolute\ error\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^$
^Epoch\ 00006:\ Learning\ rate\ is\ 0\.0100\.$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 3,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 4,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^The\ average\ loss\ for\ epoch\ 6\ is *-?\d+\.\d+(e[-+]\d+)?\ and\ mean\ absolute\ error\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^$
^Epoch\ 00007:\ Learning\ rate\ is\ 0\.0100\.$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 3,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 4,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^The\ average\ loss\ for\ epoch\ 7\ is *-?\d+\.\d+(e[-+]\d+)?\ and\ mean\ absolute\ error\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^$
^Epoch\ 00008:\ Learning\ rate\ is\ 0\.0100\.$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 3,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 4,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^The\ average\ loss\ for\ epoch\ 8\ is *-?\d+\.\d+(e[-+]\d+)?\ and\ mean\ absolute\ error\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^$
^Epoch\ 00009:\ Learning\ rate\ is\ 0\.0050\.$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 3,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 4,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^The\ average\ loss\ for\ epoch\ 9\ is *-?\d+\.\d+(e[-+]\d+)?\ and\ mean\ absolute\ error\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^$
^Epoch\ 00010:\ Learning\ rate\ is\ 0\.0050\.$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 3,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 4,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^The\ average\ loss\ for\ epoch\ 10\ is *-?\d+\.\d+(e[-+]\d+)?\ and\ mean\ absolute\ error\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^$
^Epoch\ 00011:\ Learning\ rate\ is\ 0\.0050\.$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 3,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 4,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^The\ average\ loss\ for\ epoch\ 11\ is *-?\d+\.\d+(e[-+]\d+)?\ and\ mean\ absolute\ error\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^$
^Epoch\ 00012:\ Learning\ rate\ is\ 0\.0010\.$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 3,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 4,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^The\ average\ loss\ for\ epoch\ 12\ is *-?\d+\.\d+(e[-+]\d+)?\ and\ mean\ absolute\ error\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^$
^Epoch\ 00013:\ Learning\ rate\ is\ 0\.0010\.$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 3,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 4,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^The\ average\ loss\ for\ epoch\ 13\ is *-?\d+\.\d+(e[-+]\d+)?\ and\ mean\ absolute\ error\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^$
^Epoch\ 00014:\ Learning\ rate\ is\ 0\.0010\.$
^For\ batch\ 0,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 1,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 2,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 3,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^For\ batch\ 4,\ loss\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^The\ average\ loss\ for\ epoch\ 14\ is *-?\d+\.\d+(e[-+]\d+)?\ and\ mean\ absolute\ error\ is *-?\d+\.\d+(e[-+]\d+)?\.$
^learning\ rate\ after\ the\ schedule:\ 0\.001$
