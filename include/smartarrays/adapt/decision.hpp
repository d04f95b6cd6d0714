// Owns the adaptive decision (the paper's §6 plus what it names as missing): for every array of a
// workload, the two decision diagrams of Figure 13 give an uncompressed and (if possible) a
// compressed placement candidate; the Pandia-style prediction picks the faster; huge pages are
// decided per array. Every step is recorded as a rule with its numbers, as text and as JSON.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "smartarrays/adapt/machine_profile.hpp"
#include "smartarrays/adapt/model.hpp"
#include "smartarrays/adapt/workload.hpp"
#include "smartarrays/export.hpp"

namespace smartarrays::adapt {

/// One step of a decision: which rule, about which array, what it found and the numbers it used.
struct Rule {
  std::string array;    ///< the array it is about ("" for the whole workload)
  std::string step;     ///< "uncompressed", "compressed", "prediction" or "huge pages"
  std::string rule;     ///< the rule's id, e.g. "space_for_replication" (docs/adaptivity.md lists them)
  std::string outcome;  ///< "yes", "no", or the placement / width it chose
  std::string text;     ///< one sentence with the numbers
  std::vector<std::pair<std::string, double>> numbers;  ///< the numbers by name
};

/// The choice for one array.
struct ArrayDecision {
  std::string name;                         ///< the array
  bool fixed = false;                       ///< not the model's to choose (an output array)
  ArrayConfig choice;                       ///< what it gets
  std::optional<ArrayConfig> uncompressed;  ///< the candidate of diagram (a), if any fits
  std::optional<ArrayConfig> compressed;    ///< the candidate of diagram (b), if compression is possible and fits
};

/// A whole-workload configuration with its predicted time.
struct Candidate {
  std::string label;                 ///< "interleaved/64", or "adaptive" for the decision's own
  std::vector<ArrayConfig> configs;  ///< one per array of the workload
  Prediction prediction;             ///< predicted time
  bool fits = true;                  ///< whether it fits in the nodes' free memory
};

/// The decision for a workload on a machine.
struct Decision {
  WorkloadProfile workload;            ///< what was decided for (its threads as given: 0 = not given)
  unsigned threads = 0;                ///< worker threads: the workload's when given, else decided
  bool threads_decided = false;        ///< whether threads was decided (the workload gave none)
  runtime::PinPolicy pinning = runtime::PinPolicy::sparse;  ///< where the workers run (decided)
  std::vector<ArrayDecision> arrays;   ///< one per array of the workload, in its order
  std::vector<Candidate> candidates;   ///< the uniform configurations and the adaptive one, predicted at threads
  std::vector<Rule> explanation;       ///< every rule taken, in order
  Prediction predicted;                ///< the prediction of the choice

  /// The decision for array name; throws Error(invalid_argument) for an unknown name.
  const ArrayDecision& array(const std::string& name) const;
  /// The explanation as lines of text ("a1 [uncompressed] read_only: ... -> yes").
  std::string text() const;
  /// The decision as JSON: choice (of the first decided array), arrays, candidates, explanation.
  std::string json(int indent = 2) const;
};

/// Decides every array of workload on machine. Throws Error(out_of_memory) when an array fits in
/// no configuration, Error(invalid_argument) for an invalid profile.
SMARTARRAYS_API Decision decide(const MachineProfile& machine, const WorkloadProfile& workload);

/// Whether one array of a workload fits config in the nodes' free memory next to the others.
SMARTARRAYS_API bool fits(const MachineProfile& machine, const WorkloadProfile& workload,
                          const std::vector<ArrayConfig>& configs);

/// The uncompressed and compressed configurations every array may take: for each placement of
/// os_default, single_node, interleaved, replicated and width natural or fewest (the candidates of
/// bench adaptivity). Fixed arrays keep theirs. Predicted with fit.
SMARTARRAYS_API std::vector<Candidate> uniform_candidates(const MachineProfile& machine, const WorkloadProfile& workload,
                                                          const ModelFit& fit);
/// uniform_candidates() with fit_model(machine, workload).
SMARTARRAYS_API std::vector<Candidate> uniform_candidates(const MachineProfile& machine, const WorkloadProfile& workload);

}  // namespace smartarrays::adapt
