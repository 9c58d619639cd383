/**
 * The texts of account mails, in the user's language (EN, FI, SE as the console's; English for anything else).
 * Plain text: every mail client shows it, and a link in it cannot be hidden behind other words.
 */
import { PASSWORD_RESET_TTL_MINUTES } from '@uvd/contracts';
import { languageOf, type Language } from '../notifications/messages.ts';

interface MailText {
  subject: string;
  text: string;
}

interface AccountTexts {
  resetLink: (name: string, organization: string, link: string) => MailText;
  passwordChanged: (name: string, organization: string, byAdmin: boolean) => MailText;
  resetRequested: (admin: string, user: string, organization: string) => MailText;
}

const minutes = PASSWORD_RESET_TTL_MINUTES;

const en: AccountTexts = {
  resetLink: (name, organization, link) => ({
    subject: 'Reset your UVD Console password',
    text: `Hello ${name},\n\nsomeone asked to reset the password of your account in the organization "${organization}". To choose a new password, open this link within ${minutes} minutes. It works once.\n\n${link}\n\nIf it was not you, ignore this mail: your password stays as it is. Your organization's admins have been told of the request.\n`,
  }),
  passwordChanged: (name, organization, byAdmin) => ({
    subject: 'Your UVD Console password was changed',
    text: `Hello ${name},\n\nthe password of your account in the organization "${organization}" was ${byAdmin ? 'set by an admin. You will be asked to choose a new one when you sign in' : 'changed'}. Every device that was signed in has been signed out.\n\nIf you did not expect this, contact your organization's admin at once.\n`,
  }),
  resetRequested: (admin, user, organization) => ({
    subject: 'A password reset was requested',
    text: `Hello ${admin},\n\n${user} asked for a password reset link in the organization "${organization}". The link was mailed to them and works for ${minutes} minutes.\n\nIf this looks wrong, you can set a new password for them in the console's admin view (Users).\n`,
  }),
};

const fi: AccountTexts = {
  resetLink: (name, organization, link) => ({
    subject: 'UVD Console -salasanan vaihto',
    text: `Hei ${name},\n\njoku pyysi tilisi salasanan vaihtoa organisaatiossa "${organization}". Valitse uusi salasana avaamalla tämä linkki ${minutes} minuutin kuluessa. Linkki toimii kerran.\n\n${link}\n\nJos pyyntö ei ollut sinun, voit jättää tämän viestin huomiotta: salasanasi pysyy ennallaan. Organisaatiosi ylläpitäjille on kerrottu pyynnöstä.\n`,
  }),
  passwordChanged: (name, organization, byAdmin) => ({
    subject: 'UVD Console -salasanasi vaihdettiin',
    text: `Hei ${name},\n\ntilisi salasana organisaatiossa "${organization}" ${byAdmin ? 'asetettiin ylläpitäjän toimesta. Sinua pyydetään valitsemaan uusi salasana kirjautuessasi' : 'vaihdettiin'}. Kaikki kirjautuneet laitteet on kirjattu ulos.\n\nJos et odottanut tätä, ota heti yhteyttä organisaatiosi ylläpitäjään.\n`,
  }),
  resetRequested: (admin, user, organization) => ({
    subject: 'Salasanan vaihtoa pyydettiin',
    text: `Hei ${admin},\n\n${user} pyysi salasanan vaihtolinkkiä organisaatiossa "${organization}". Linkki lähetettiin hänelle ja toimii ${minutes} minuuttia.\n\nJos tämä näyttää väärältä, voit asettaa hänelle uuden salasanan konsolin ylläpitonäkymässä (Käyttäjät).\n`,
  }),
};

// `se` is the console's Swedish, as in its other texts (apps/web/src/locales/se.json, notifications/messages.ts).
const se: AccountTexts = {
  resetLink: (name, organization, link) => ({
    subject: 'Återställ ditt lösenord till UVD-konsolen',
    text: `Hej ${name},\n\nnågon har bett om att återställa lösenordet till ditt konto i organisationen "${organization}". Öppna den här länken inom ${minutes} minuter för att välja ett nytt lösenord. Länken fungerar en gång.\n\n${link}\n\nOm det inte var du kan du strunta i det här mejlet: ditt lösenord förblir oförändrat. Din organisations administratörer har fått veta om begäran.\n`,
  }),
  passwordChanged: (name, organization, byAdmin) => ({
    subject: 'Ditt lösenord till UVD-konsolen har ändrats',
    text: `Hej ${name},\n\nlösenordet till ditt konto i organisationen "${organization}" ${byAdmin ? 'har satts av en administratör. Du ombeds välja ett nytt när du loggar in' : 'har ändrats'}. Alla enheter som var inloggade har loggats ut.\n\nOm du inte väntade dig detta, kontakta genast din organisations administratör.\n`,
  }),
  resetRequested: (admin, user, organization) => ({
    subject: 'Någon har bett om ett nytt lösenord',
    text: `Hej ${admin},\n\n${user} har bett om en länk för att återställa lösenordet i organisationen "${organization}". Länken mejlades till hen och fungerar i ${minutes} minuter.\n\nOm det ser fel ut kan du sätta ett nytt lösenord åt hen i konsolens administrationsvy (Användare).\n`,
  }),
};

const catalogue: Record<Language, AccountTexts> = { en, fi, se };

/** The account mails in `language` (a user's saved language, EN/FI/SE). */
export const accountMail = (language: string): AccountTexts => catalogue[languageOf(language)];
