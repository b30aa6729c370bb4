package reliability

// Requirement is one instantiated reliability requirement: the contents of
// a requirements file (JSON) for one transformation.
type Requirement struct {
	// Transformation is the corruption's catalogue name (e.g. "frost").
	Transformation string `json:"transformation"`
	// Task names the recognition task (the task names of package human and model: "car", "imagenet16", …).
	Task string `json:"task"`
	// Dataset names the image distribution the human data came from
	// (e.g. "icse2022-imagenet").
	Dataset string `json:"dataset"`
	// VIFMethod is the VIF flavour of the Δv axis the thresholds live on.
	VIFMethod string `json:"vif_method"`
	// TC and TP are the thresholds t_c and t_p in [0, 1].
	TC float64 `json:"t_c"`
	TP float64 `json:"t_p"`
	// HumanAccuracy is the human clean accuracy (m0 of the study) and
	// HumanPreservation the pooled preservation of the lowest-Δv half (s0).
	HumanAccuracy     float64 `json:"human_accuracy"`
	HumanPreservation float64 `json:"human_preservation"`
	// Rule is the stopping rule used: "script", "intended" or "first".
	Rule string `json:"rule"`
	// Source describes the data the thresholds were estimated from.
	Source string `json:"source"`
	// Details holds the audit trail (per-bin fits and p-values, λ, df).
	Details any `json:"details,omitempty"`
}
