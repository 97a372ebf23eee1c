package plan

import (
	"testing"
	"time"

	rampv1 "github.com/ramp-rollouts/ramp/api/v1alpha1"
)

func templates() *rampv1.RolloutAnalysis {
	return &rampv1.RolloutAnalysis{Templates: []rampv1.AnalysisTemplateRef{{TemplateName: "t"}}}
}

func TestBlueGreenPrePromotion(t *testing.T) {
	for _, tc := range []struct {
		phase  rampv1.AnalysisPhase
		active string
		abort  bool
	}{
		{rampv1.AnalysisPhaseSuccessful, "v2", false},
		{rampv1.AnalysisPhaseFailed, "v1", true},
	} {
		t.Run(string(tc.phase), func(t *testing.T) {
			s := newBlueGreen(t, 3, rampv1.BlueGreenStrategy{PrePromotionAnalysis: templates()})
			deployV1(s)
			s.run("v2", time.Minute)
			if st := s.ro.Status; st.BlueGreen.ActiveSelector != "v1" || st.BlueGreen.PrePromotionAnalysisRunStatus == nil {
				t.Fatalf("while pre-promotion analysis runs: active %s, run %+v; want v1 and a run", st.BlueGreen.ActiveSelector, st.BlueGreen.PrePromotionAnalysisRunStatus)
			}
			s.finish("web-v2-PrePromotion", tc.phase, "")
			s.run("v2", time.Minute)
			st := s.ro.Status
			if st.BlueGreen.ActiveSelector != tc.active || st.Abort != tc.abort {
				t.Errorf("after %s: active %s abort %v; want %s %v", tc.phase, st.BlueGreen.ActiveSelector, st.Abort, tc.active, tc.abort)
			}
		})
	}
}

func TestBlueGreenPostPromotion(t *testing.T) {
	for _, tc := range []struct {
		phase          rampv1.AnalysisPhase
		active, stable string
		v1             int32
	}{
		{rampv1.AnalysisPhaseSuccessful, "v2", "v2", 0},
		{rampv1.AnalysisPhaseFailed, "v1", "v1", 3},
	} {
		t.Run(string(tc.phase), func(t *testing.T) {
			s := newBlueGreen(t, 3, rampv1.BlueGreenStrategy{PostPromotionAnalysis: templates()})
			deployV1(s)
			s.run("v2", time.Minute)
			st := s.ro.Status
			if st.BlueGreen.ActiveSelector != "v2" || st.StableRS != "v1" || s.rs["v1"].Spec != 3 || s.rs["v1"].ScaleDownAt != nil {
				t.Fatalf("during post-promotion analysis: active %s stable %s v1=%d deadline %v; want v2, v1, 3 and no deadline",
					st.BlueGreen.ActiveSelector, st.StableRS, s.rs["v1"].Spec, s.rs["v1"].ScaleDownAt)
			}
			s.finish("web-v2-PostPromotion", tc.phase, "")
			s.run("v2", 2*time.Minute)
			st = s.ro.Status
			if st.BlueGreen.ActiveSelector != tc.active || st.StableRS != tc.stable || s.rs["v1"].Spec != tc.v1 {
				t.Errorf("after %s: active %s stable %s v1=%d; want %s %s %d", tc.phase, st.BlueGreen.ActiveSelector, st.StableRS, s.rs["v1"].Spec, tc.active, tc.stable, tc.v1)
			}
		})
	}
}
