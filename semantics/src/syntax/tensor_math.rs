//! The functions of Ext-9 (`expTensor`, `logTensor`, `softmax`, `logSoftmax`) and Ext-10
//! (`reduceSum`, `reduceMean`, `reduceMax`, `reduceMin`): one tensor operand, then no axis, one
//! axis, or a list of axes.

/// Which of the eight functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensorMath {
    ExpTensor,
    LogTensor,
    Softmax,
    LogSoftmax,
    ReduceSum,
    ReduceMean,
    ReduceMax,
    ReduceMin,
}

/// How many axes a function takes after its operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axes {
    /// `expTensor(Y)`, `logTensor(Y)`: element-wise, no axis.
    None,
    /// `softmax(Y, A)`, `logSoftmax(Y, A)`.
    One,
    /// `reduceSum(Y, A0, …)` and the other reductions: one axis or more.
    Some,
}

impl TensorMath {
    pub const ALL: [TensorMath; 8] = [
        TensorMath::ExpTensor,
        TensorMath::LogTensor,
        TensorMath::Softmax,
        TensorMath::LogSoftmax,
        TensorMath::ReduceSum,
        TensorMath::ReduceMean,
        TensorMath::ReduceMax,
        TensorMath::ReduceMin,
    ];

    pub fn keyword(self) -> &'static str {
        match self {
            TensorMath::ExpTensor => "expTensor",
            TensorMath::LogTensor => "logTensor",
            TensorMath::Softmax => "softmax",
            TensorMath::LogSoftmax => "logSoftmax",
            TensorMath::ReduceSum => "reduceSum",
            TensorMath::ReduceMean => "reduceMean",
            TensorMath::ReduceMax => "reduceMax",
            TensorMath::ReduceMin => "reduceMin",
        }
    }

    pub fn of_word(word: &str) -> Option<TensorMath> {
        TensorMath::ALL.into_iter().find(|f| f.keyword() == word)
    }

    pub fn axes(self) -> Axes {
        match self {
            TensorMath::ExpTensor | TensorMath::LogTensor => Axes::None,
            TensorMath::Softmax | TensorMath::LogSoftmax => Axes::One,
            _ => Axes::Some,
        }
    }

    /// The patch that adds it.
    pub fn patch(self) -> &'static str {
        if self.axes() == Axes::Some { "Ext-10" } else { "Ext-9" }
    }
}
