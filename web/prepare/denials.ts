/**
 * The denials panel's headline after its count: a refused request answered otherwise while the refusal should still
 * have stood means the server decided it afresh instead of keeping its answer (DOMAIN.md section 5), said as such.
 */
export function denialsHeadline(total: number): string {
  if (total === 0) return 'refused requests were answered differently while their refusal still stood.';
  const [request, was, their, them] =
    total === 1 ? ['request', 'was', 'its', 'it'] : ['requests', 'were', 'their', 'them'];
  return `refused ${request} ${was} answered differently while ${their} refusal still stood: the server decided ${them} afresh instead of keeping its answer.`;
}
