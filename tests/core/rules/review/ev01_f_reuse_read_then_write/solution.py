import sys
import numpy as np
np.save(sys.argv[2], np.zeros(len(np.load(sys.argv[1]))))
