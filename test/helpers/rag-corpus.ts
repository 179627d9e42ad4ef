/** A small hand-written corpus: six short abstracts with shared entities (TNF, insulin resistance, stem cells…). */
export const CORPUS = [
  {
    id: "bio-1",
    title: "Insulin resistance in skeletal muscle",
    text: "Insulin resistance in skeletal muscle precedes type 2 diabetes. Exercise improves insulin sensitivity through GLUT4 translocation. Mitochondrial dysfunction contributes to insulin resistance in older adults.",
    source: "journal-a",
    metadata: { year: 2019 },
  },
  {
    id: "bio-2",
    title: "TNF and inflammation",
    text: "TNF drives chronic inflammation in rheumatoid arthritis. Blocking TNF with monoclonal antibodies reduces joint damage. IL-6 acts together with TNF in the acute phase response.",
    source: "journal-b",
    metadata: { year: 2020 },
  },
  {
    id: "bio-3",
    title: "Stem cells and tissue repair",
    text: "Mesenchymal stem cells secrete factors that promote tissue repair. Stem cells from bone marrow migrate to injured tissue. Biomaterials can guide stem cells toward bone formation.",
    source: "journal-a",
    metadata: { year: 2021 },
  },
  {
    id: "bio-4",
    title: "Gut microbiome and obesity",
    text: "The gut microbiome differs between lean and obese individuals. Transplanting microbiota from obese mice increases fat mass in germ-free mice. Diet shapes the gut microbiome within days.",
    source: "journal-c",
    metadata: { year: 2018 },
  },
  {
    id: "bio-5",
    title: "Vaccination and measles outbreaks",
    text: "Measles outbreaks follow declines in vaccination coverage. Two doses of MMR vaccine protect about 97 percent of children. Herd immunity against measles requires coverage near 95 percent.",
    source: "journal-d",
    metadata: { year: 2017 },
  },
  {
    id: "bio-6",
    title: "Sleep deprivation and memory",
    text: "Sleep deprivation impairs memory consolidation in the hippocampus. Slow wave sleep supports the transfer of memories to the cortex. Short sleep increases the risk of obesity and insulin resistance.",
    source: "journal-b",
    metadata: { year: 2022 },
  },
];
