package difftest

import (
	"github.com/worldc/worldc/generated/ecommerce_returns"
	"github.com/worldc/worldc/generated/freight_billing"
	"github.com/worldc/worldc/generated/hospital_scheduling"
	"github.com/worldc/worldc/generated/insurance_claims"
	"github.com/worldc/worldc/generated/it_service_desk"
	"github.com/worldc/worldc/generated/restaurant_procurement"
	"github.com/worldc/worldc/generated/tau2_retail"
	"github.com/worldc/worldc/generated/telecom_plans"
	"github.com/worldc/worldc/generated/university_admissions"
	"github.com/worldc/worldc/runtime"
)

// compiled maps each example world to its committed generated package.
// TestCorpusIsCovered fails when a world of testdata/worlds is missing.
var compiled = map[string]runtime.World{
	"ecommerce_returns":      ecommerce_returns.New(),
	"freight_billing":        freight_billing.New(),
	"hospital_scheduling":    hospital_scheduling.New(),
	"insurance_claims":       insurance_claims.New(),
	"it_service_desk":        it_service_desk.New(),
	"restaurant_procurement": restaurant_procurement.New(),
	"tau2_retail":            tau2_retail.New(),
	"telecom_plans":          telecom_plans.New(),
	"university_admissions":  university_admissions.New(),
}
